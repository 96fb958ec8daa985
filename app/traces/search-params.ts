// The /traces page's URL state: search, filters and both lists' pages.
import { z } from "zod";
import { decodeRejectionCursor, decodeTraceCursor } from "@/lib/schemas/traces";
import { tracesHref } from "@/lib/routes";
import { safeCursor } from "@/lib/url-state";

const text = z.string().optional().catch(undefined);

export const tracesPageParamsSchema = z.object({
  q: text.transform((v) => v?.trim().slice(0, 256) || undefined),
  chain_id: text.transform((v) => v?.slice(0, 256)),
  mismatch: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .catch(undefined),
  walls: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .catch(undefined),
  after: text,
  before: text,
  r_after: text,
  r_before: text,
});
export type TracesPageParams = z.infer<typeof tracesPageParamsSchema>;

export const TRACE_PAGE_SIZE = 25;
export const REJECTION_PAGE_SIZE = 10;

export const traceCursor = (cursor: string | undefined) => safeCursor(decodeTraceCursor, cursor);
export const rejectionCursor = (cursor: string | undefined) => safeCursor(decodeRejectionCursor, cursor);

/** This page's URL with some parameters changed; `undefined` removes one. */
export function tracesPageHref(
  current: TracesPageParams,
  changes: Partial<Record<keyof TracesPageParams, string | undefined>>,
): string {
  return tracesHref({
    q: current.q,
    chain_id: current.chain_id,
    mismatch: current.mismatch === undefined ? undefined : String(current.mismatch),
    walls: current.walls === undefined ? undefined : String(current.walls),
    after: current.after,
    before: current.before,
    r_after: current.r_after,
    r_before: current.r_before,
    ...changes,
  });
}
