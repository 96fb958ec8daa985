// URL state of the chains family: the list (/chains) and one chain's page (/chains/{id}).
import { z } from "zod";
import { cursorParam, cursorPart, encodeCursor } from "@/lib/http/cursor";
import {
  CHAIN_STATUS_FILTERS,
  type ChainStatusFilter,
  chainListQuerySchema,
  statusListParts,
} from "@/lib/schemas/chains";

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;

const pageSize = z.coerce
  .number()
  .pipe(
    z.union(
      PAGE_SIZES.map((n) => z.literal(n)),
      { error: `not a page size this list offers (${PAGE_SIZES.join(", ")})` },
    ),
  )
  .default(DEFAULT_PAGE_SIZE)
  .catch(DEFAULT_PAGE_SIZE);

/**
 * The chains list: the API's filters with its defaults. A bad value falls back rather than
 * failing the page, and the page names it (`parseSearchParamsWithNotices`).
 */
const chainsShape = chainListQuerySchema.shape;

/** Of a status list with an unknown value, the known ones still filter (the page names the rest). */
const knownStatuses = ({ input }: { input: unknown }): ChainStatusFilter[] | undefined => {
  const known = statusListParts(String(input ?? "")).filter((v): v is ChainStatusFilter =>
    (CHAIN_STATUS_FILTERS as readonly string[]).includes(v),
  );
  return known.length > 0 ? [...new Set(known)] : undefined;
};

export const chainsPageParamsSchema = z.object({
  status: chainsShape.status.catch(knownStatuses),
  marker_kind: chainsShape.marker_kind.catch(undefined),
  range: chainsShape.range.catch(undefined),
  content_class: chainsShape.content_class.catch(undefined),
  service: chainsShape.service.catch(undefined),
  q: chainsShape.q.catch(undefined),
  sort: chainsShape.sort.catch("attention"),
  order: chainsShape.order.catch(undefined),
  cursor: z.string().max(512).optional().catch(undefined),
  dir: z.enum(["next", "prev"]).default("next").catch("next"),
  limit: pageSize,
});
export type ChainsPageParams = z.infer<typeof chainsPageParamsSchema>;

/** Keyset cursor [pass_number, row id] in the one cursor format of every list. */
// The row id may be 0: the "last page" link pages back from [MAX_SAFE_INTEGER, 0].
const passCursorSchema = cursorParam(z.tuple([cursorPart.int, cursorPart.int]));

export function formatPassCursor(cursor: readonly [number, number]): string {
  return encodeCursor(cursor);
}

/** One chain: the pass in detail, and where the passes table stands. */
export const chainPageParamsSchema = z.object({
  pass: z.string().max(256).optional().catch(undefined),
  after: passCursorSchema.optional().catch(undefined),
  before: passCursorSchema.optional().catch(undefined),
  from: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().catch(undefined),
  size: pageSize,
});
export type ChainPageParams = z.infer<typeof chainPageParamsSchema>;
