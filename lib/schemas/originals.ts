import { z } from "zod";
import { HASH_ALGORITHMS } from "../originals/headroom/algorithms";
import { MAX_TTL_SECONDS, type MissReason, parseHashKey } from "../originals/rules";
import { cursorPart, decodeCursor } from "../http/cursor";
import { limitSchema } from "../http/list";
import { chainIdSchema, nonNegativeInt, text, utcTimestamp } from "./common";

// Originals run to 32 MiB: checked in linear native calls, never by splitting into code
// points as the short-text helper does.
const storableLargeText = z
  .string()
  .refine((v) => !v.includes("\u0000") && v.isWellFormed(), "must not contain NUL characters or unpaired surrogates");

export const storeOriginalSchema = z.object({
  original: storableLargeText,
  compressed: storableLargeText.nullish(),
  content_type: text({ min: 1, max: 255 }).nullish(),
  hash: z.string().max(256).nullish(),
  chain_id: chainIdSchema.nullish(),
  pass_id: text({ min: 1, max: 256 }).nullish(),
  tool_name: text({ min: 1, max: 256 }).nullish(),
  original_items: nonNegativeInt.nullish(),
  compressed_items: nonNegativeInt.nullish(),
  original_tokens: nonNegativeInt.nullish(),
  compressed_tokens: nonNegativeInt.nullish(),
  /** The algorithm of `hash` and of the marker key: Headroom's compressors also key by MD5 or BLAKE3. */
  hash_algorithm: z.enum(HASH_ALGORITHMS).nullish(),
  ttl_seconds: nonNegativeInt.max(MAX_TTL_SECONDS, `must be at most ${MAX_TTL_SECONDS} (about 100 years)`).nullish(),
});
export type StoreOriginalInput = z.infer<typeof storeOriginalSchema>;

/** A store key as an agent sends it: normalised (trimmed, `hash=` dropped, lower case) or refused. */
export const hashKeySchema = z.string().transform((value, ctx) => {
  const parsed = parseHashKey(value);
  if (!parsed.ok) {
    ctx.addIssue({ code: "custom", message: parsed.message });
    return z.NEVER;
  }
  return parsed.key;
});

/** The `headroom_retrieve` tool call. */
export const retrieveRequestSchema = z.object({ hash: hashKeySchema });

export const ORIGINAL_SORTS = ["created", "last_retrieved", "size", "retrievals"] as const;
export type OriginalSort = (typeof ORIGINAL_SORTS)[number];
export const ORIGINAL_STATUS_FILTERS = ["live", "evicted", "expired", "gone"] as const;

export const originalListQuerySchema = z.object({
  status: z.enum(ORIGINAL_STATUS_FILTERS).optional(),
  content_type: z.string().max(255).optional(),
  tool_name: z.string().max(256).optional(),
  chain_id: z.string().max(256).optional(),
  /** A hash prefix, or text found in the tool name, chain id or pass id. */
  q: z.string().max(256).optional(),
  sort: z.enum(ORIGINAL_SORTS).default("created"),
  order: z.enum(["asc", "desc"]).default("desc"),
  cursor: z.string().optional(),
  limit: limitSchema,
});
export type OriginalListQuery = z.infer<typeof originalListQuerySchema>;

/** A keyset position in the originals list: the sort's value, then the hash. */
export type OriginalKey = [string | number, string];

// Each sort's key has its column's type, so a cursor of another sort is refused, not cast.
const CURSOR_SCHEMAS = {
  created: z.tuple([cursorPart.timestamp, cursorPart.text]),
  last_retrieved: z.tuple([cursorPart.timestamp, cursorPart.text]),
  size: z.tuple([cursorPart.int, cursorPart.text]),
  retrievals: z.tuple([cursorPart.int, cursorPart.text]),
} satisfies Record<OriginalSort, z.ZodTuple>;

/** An originals-list cursor checked against the sort it pages; throws the contract's 422 if it does not fit. */
export function decodeOriginalCursor(cursor: string | undefined, sort: OriginalSort): OriginalKey | undefined {
  return decodeCursor(cursor, CURSOR_SCHEMAS[sort]);
}

export const originalStatsQuerySchema = z.object({
  hours: z.coerce
    .number()
    .int("hours must be a whole number")
    .min(1)
    .max(24 * 14)
    .default(24),
});

/** `?raw=1` asks GET /originals/{hash} for the bare text instead of the JSON envelope. */
export const originalGetQuerySchema = z.object({
  raw: z
    .enum(["1", "true", "0", "false"])
    .transform((v) => v === "1" || v === "true")
    .optional(),
});

/** `/originals/{hash}/content`: the detail page's reader (a slice with `offset`, or the whole text). */
export const originalContentQuerySchema = z.object({
  part: z.enum(["original", "compressed"]).default("original"),
  offset: z.coerce.number().int().min(0).optional(),
  length: z.coerce.number().int().min(1).max(1_000_000).default(65_536),
  download: z.enum(["1", "true"]).optional(),
});

// ---------------------------------------------------------------------------------------
// Answers

const count = nonNegativeInt;

export const ORIGINAL_STATUSES = ["live", "evicted", "expired"] as const;
export type OriginalStatus = (typeof ORIGINAL_STATUSES)[number];

export const originalSummarySchema = z
  .object({
    hash: z.string(),
    status: z.enum(ORIGINAL_STATUSES),
    size_bytes: count,
    compressed_size_bytes: count.nullable(),
    content_type: z.string().nullable(),
    tool_name: z.string().nullable(),
    chain_id: z.string().nullable(),
    pass_id: z.string().nullable(),
    original_items: count.nullable(),
    compressed_items: count.nullable(),
    original_tokens: count.nullable(),
    compressed_tokens: count.nullable(),
    tokens_saved: z.int().nullable(),
    retrieval_tokens: count,
    tokens_estimated: z.boolean(),
    ttl_seconds: count.nullable(),
    created_at: utcTimestamp,
    expires_at: utcTimestamp.nullable(),
    last_retrieved_at: utcTimestamp.nullable(),
    retrieval_count: count,
    store_count: count,
    gone_at: utcTimestamp.nullable(),
    gone_reason: z.string().nullable(),
  })
  .meta({ id: "OriginalSummary" });
export type OriginalSummaryWire = z.infer<typeof originalSummarySchema>;

export const retrievedOriginalSchema = originalSummarySchema.extend({ original: z.string() }).meta({ id: "Original" });
export type RetrievedOriginalWire = z.infer<typeof retrievedOriginalSchema>;

export const storeResultSchema = z
  .object({
    hash: z.string(),
    size_bytes: count,
    marker: z.string(),
    marker_hash: z.string(),
    deduplicated: z.boolean(),
    status: z.literal("live"),
    content_type: z.string().nullable(),
    expires_at: utcTimestamp.nullable(),
    created_at: utcTimestamp,
  })
  .meta({ id: "StoreResult" });
export type StoreResultWire = z.infer<typeof storeResultSchema>;

const originalTotalsSchema = z.object({
  stored: count,
  /** Original plus compressed text taken in (what counts against the budget). */
  stored_bytes: count,
  deduplicated: count,
  retrieved: count,
  retrieved_bytes: count,
  misses: z.object({
    unknown: count,
    evicted: count,
    expired: count,
    ambiguous: count,
    total: count,
  } satisfies Record<MissReason | "total", typeof count>),
  evictions: count,
  evicted_bytes: count,
  expiries: count,
  expired_bytes: count,
  /** Retrievals over retrieval attempts; null before the first attempt. */
  hit_rate: z.number().nullable(),
  tokens: z.object({
    saved_gross: z.number(),
    respent: z.number(),
    net: z.number(),
    respent_share: z.number().nullable(),
  }),
});
export type OriginalTotalsWire = z.infer<typeof originalTotalsSchema>;

export const originalStatsSchema = z
  .object({
    config: z.object({
      max_bytes: count,
      default_ttl_seconds: count.nullable(),
      max_original_bytes: count,
      min_prefix_length: count,
    }),
    store: z.object({
      live_count: count,
      live_bytes: count,
      evicted_count: count,
      expired_count: count,
      budget_used: z.number(),
    }),
    totals: originalTotalsSchema,
    hourly: z.array(originalTotalsSchema.extend({ hour: utcTimestamp })),
  })
  .meta({ id: "OriginalStats" });
export type OriginalStatsWire = z.infer<typeof originalStatsSchema>;

/** `/originals/{hash}/content?offset=`: a slice of a stored text for the detail page. */
export const textSliceSchema = z.looseObject({ text: z.string() });
