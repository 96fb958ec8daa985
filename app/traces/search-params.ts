// The /traces page's URL state, parsed once: every view (search, filters, both lists'
// pages) is a shareable link.
import { z } from "zod";
import { ApiError } from "@/lib/errors";
import { decodeRejectionCursor, decodeTraceCursor, type ListKey } from "@/lib/schemas/traces";

const first = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (Array.isArray(v) ? v[0] : v) || undefined);

const pageParamsSchema = z.object({
  q: first.transform((v) => v?.trim().slice(0, 256) || undefined),
  chain_id: first.transform((v) => v?.slice(0, 256)),
  mismatch: first.transform((v) => (v === "true" ? true : v === "false" ? false : undefined)),
  after: first,
  before: first,
  r_after: first,
  r_before: first,
});

export type TracesPageParams = z.infer<typeof pageParamsSchema>;
export type RawSearchParams = Record<string, string | string[] | undefined>;

export const TRACE_PAGE_SIZE = 25;
export const REJECTION_PAGE_SIZE = 10;

export function parseTracesPageParams(raw: RawSearchParams): TracesPageParams {
  return pageParamsSchema.parse(raw);
}

/** A cursor from an old or hand-edited link starts the list over instead of failing the page. */
export function safeCursor<K>(
  decode: (cursor: string | undefined) => K | undefined,
  cursor: string | undefined,
): { key?: K; rejected: boolean } {
  try {
    return { key: decode(cursor), rejected: false };
  } catch (error) {
    if (error instanceof ApiError) return { rejected: true };
    throw error;
  }
}

export const traceCursor = (cursor: string | undefined) => safeCursor<ListKey<string>>(decodeTraceCursor, cursor);
export const rejectionCursor = (cursor: string | undefined) =>
  safeCursor<ListKey<number>>(decodeRejectionCursor, cursor);

/** This page's URL with some parameters changed; `undefined` removes one. */
export function tracesHref(
  current: TracesPageParams,
  changes: Partial<Record<keyof TracesPageParams, string | undefined>>,
): string {
  const merged: Record<string, string | undefined> = {
    q: current.q,
    chain_id: current.chain_id,
    mismatch: current.mismatch === undefined ? undefined : String(current.mismatch),
    after: current.after,
    before: current.before,
    r_after: current.r_after,
    r_before: current.r_before,
    ...changes,
  };
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(merged)) if (value !== undefined) search.set(key, value);
  const query = search.toString();
  return query ? `/traces?${query}` : "/traces";
}
