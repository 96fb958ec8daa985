// /originals' URL state: filters, sort, page size and the keyset cursor.
import { z } from "zod";
import { DEFAULT_LIMIT } from "@/lib/http/list";
import {
  decodeOriginalCursor,
  type OriginalKey,
  ORIGINAL_SORTS,
  ORIGINAL_STATUS_FILTERS,
  type OriginalListQuery,
} from "@/lib/schemas/originals";
import { type IgnoredParam, parseSearchParamsWithNotices, safeCursor, type RawSearchParams } from "@/lib/url-state";

const optionalText = z
  .string()
  .trim()
  .max(256)
  .optional()
  .catch(undefined)
  .transform((v) => v || undefined);

export const originalsPageParamsSchema = z.object({
  status: z.enum(ORIGINAL_STATUS_FILTERS).optional().catch(undefined),
  content_type: optionalText,
  tool_name: optionalText,
  chain_id: optionalText,
  tenant: optionalText,
  q: optionalText,
  sort: z.enum(ORIGINAL_SORTS).catch("created").default("created"),
  order: z.enum(["asc", "desc"]).catch("desc").default("desc"),
  limit: z.coerce.number().int().min(1).max(200).catch(DEFAULT_LIMIT).default(DEFAULT_LIMIT),
  cursor: z.string().optional().catch(undefined),
});

export interface OriginalsPageQuery {
  filter: Omit<OriginalListQuery, "cursor">;
  after: OriginalKey | undefined;
  /** Filters and sort as a query string, for links that keep them. */
  base: string;
  /** Filters only, for sort links. */
  filtersOnly: string;
  /** URL values the page could not use (it says so). */
  ignored: IgnoredParam[];
}

export function parseOriginalsPageParams(raw: RawSearchParams): OriginalsPageQuery {
  const { params, ignored } = parseSearchParamsWithNotices(originalsPageParamsSchema, raw, { quiet: ["cursor"] });
  const { cursor, ...filter } = params;
  const after = safeCursor((c) => decodeOriginalCursor(c, filter.sort), cursor).key;
  const filters = new URLSearchParams();
  for (const key of ["status", "content_type", "tool_name", "chain_id", "tenant", "q"] as const) {
    const value = filter[key];
    if (value) filters.set(key, value);
  }
  if (filter.limit !== DEFAULT_LIMIT) filters.set("limit", String(filter.limit));
  const base = new URLSearchParams(filters);
  base.set("sort", filter.sort);
  base.set("order", filter.order);
  return { filter, after, base: base.toString(), filtersOnly: filters.toString(), ignored };
}
