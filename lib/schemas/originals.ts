import { z } from "zod";
import { HASH_ALGORITHMS } from "../originals/headroom/algorithms";
import { MAX_TTL_SECONDS, type MissReason, parseHashKey } from "../originals/rules";
import { cursorPart, decodeCursor } from "../http/cursor";
import { limitSchema } from "../http/list";
import { chainIdSchema, jsonObject, nonNegativeInt, text, utcTimestamp } from "./common";

// Originals run to 32 MiB: checked in linear native calls, never by splitting into code
// points as the short-text helper does.
const storableLargeText = z
  .string()
  .refine((v) => !v.includes("\u0000") && v.isWellFormed(), "must not contain NUL characters or unpaired surrogates");

/**
 * A namespace of store keys, as Headroom's tenant prefix: the same original under two tenants
 * is two entries. `""` (or absent) is the default namespace, where agents' own originals live.
 */
const tenantSchema = text({ max: 128 });
const ORIGINAL_METADATA_MAX_BYTES = 16 * 1024;
/** The client's own fields for an entry, kept as given (a store again replaces them). */
const originalMetadataSchema = jsonObject(ORIGINAL_METADATA_MAX_BYTES);

export const storeOriginalSchema = z.object({
  original: storableLargeText,
  tenant: tenantSchema.nullish(),
  metadata: originalMetadataSchema.nullish(),
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
const hashKeySchema = z.string().transform((value, ctx) => {
  const parsed = parseHashKey(value);
  if (!parsed.ok) {
    ctx.addIssue({ code: "custom", message: parsed.message });
    return z.NEVER;
  }
  return parsed.key;
});

/** The `headroom_retrieve` tool call. */
export const retrieveRequestSchema = z.object({ hash: hashKeySchema, tenant: tenantSchema.optional() });

export const ORIGINAL_SORTS = ["created", "last_retrieved", "size", "retrievals"] as const;
export type OriginalSort = (typeof ORIGINAL_SORTS)[number];
export const ORIGINAL_STATUS_FILTERS = ["live", "evicted", "expired", "gone"] as const;

/** Which entries a list, a count or a clear covers. */
const originalFilterSchema = z.object({
  status: z.enum(ORIGINAL_STATUS_FILTERS).optional(),
  tenant: tenantSchema.optional(),
  /** The entries a store key names: its own hash (full or prefix) or its MD5 / BLAKE3 key. */
  key: hashKeySchema.optional(),
  content_type: z.string().max(255).optional(),
  tool_name: z.string().max(256).optional(),
  chain_id: z.string().max(256).optional(),
});

export const originalListQuerySchema = originalFilterSchema.extend({
  /** A hash prefix, or text found in the tool name, chain id or pass id. */
  q: z.string().max(256).optional(),
  sort: z.enum(ORIGINAL_SORTS).default("created"),
  order: z.enum(["asc", "desc"]).default("desc"),
  cursor: z.string().optional(),
  limit: limitSchema,
});
export type OriginalListQuery = z.infer<typeof originalListQuerySchema>;

/** A keyset position in the originals list: the sort's value, the hash, then the tenant (absent: `""`). */
export type OriginalKey = [string | number, string] | [string | number, string, string];

// Each sort's key has its column's type, so a cursor of another sort is refused, not cast.
const CURSOR_SCHEMAS = {
  created: z.tuple([cursorPart.timestamp, cursorPart.text, cursorPart.text.optional()]),
  last_retrieved: z.tuple([cursorPart.timestamp, cursorPart.text, cursorPart.text.optional()]),
  size: z.tuple([cursorPart.int, cursorPart.text, cursorPart.text.optional()]),
  retrievals: z.tuple([cursorPart.int, cursorPart.text, cursorPart.text.optional()]),
} satisfies Record<OriginalSort, z.ZodTuple>;

/** An originals-list cursor checked against the sort it pages; throws the contract's 422 if it does not fit. */
export function decodeOriginalCursor(cursor: string | undefined, sort: OriginalSort): OriginalKey | undefined {
  return decodeCursor(cursor, CURSOR_SCHEMAS[sort]) as OriginalKey | undefined;
}

export const originalStatsQuerySchema = z.object({
  hours: z.coerce
    .number()
    .int("hours must be a whole number")
    .min(1)
    .max(24 * 14)
    .default(24),
});

const flag = z
  .enum(["1", "true", "0", "false"])
  .transform((v) => v === "1" || v === "true")
  .optional();

/**
 * `?raw=1` asks GET /originals/{hash} for the bare text instead of the JSON envelope; `?peek=1`
 * looks the entry up without counting a retrieval (and answers its compressed text too).
 */
export const originalGetQuerySchema = z.object({ raw: flag, peek: flag, tenant: tenantSchema.optional() });

/** DELETE /originals/{hash}: the entry of this tenant (default `""`). */
export const originalDeleteQuerySchema = z.object({ tenant: tenantSchema.optional() });

/** DELETE /originals: every live entry of one tenant, named explicitly (`tenant=` for the default one). */
export const originalClearQuerySchema = z.object({
  tenant: z.string({ error: "is required: the tenant to clear (tenant= for the default one)" }).pipe(tenantSchema),
});

/** GET /originals/count: the list's filters, without paging. */
export const originalCountQuerySchema = originalFilterSchema;
export type OriginalCountQuery = z.infer<typeof originalCountQuerySchema>;

/** POST /originals/{hash}/retrievals: a retrieval the client served itself (from a peek), counted here. */
export const recordRetrievalSchema = z.object({
  tenant: tenantSchema.nullish(),
  /** Replaces the entry's metadata, as a store again would. */
  metadata: originalMetadataSchema.nullish(),
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
    tenant: z.string(),
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
    metadata: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "OriginalSummary" });
export type OriginalSummaryWire = z.infer<typeof originalSummarySchema>;

export const retrievedOriginalSchema = originalSummarySchema.extend({ original: z.string() }).meta({ id: "Original" });
export type RetrievedOriginalWire = z.infer<typeof retrievedOriginalSchema>;

/** A peek: the entry with both texts, nothing counted. */
export const peekedOriginalSchema = retrievedOriginalSchema
  .extend({ compressed: z.string().nullable() })
  .meta({ id: "PeekedOriginal" });
export type PeekedOriginalWire = z.infer<typeof peekedOriginalSchema>;

export const deleteResultSchema = z
  .object({
    hash: z.string(),
    tenant: z.string(),
    /** False when the entry was already gone (deleting again changes nothing). */
    deleted: z.boolean(),
    status: z.enum(["evicted", "expired"]),
  })
  .meta({ id: "DeleteOriginalResult" });
export type DeleteResultWire = z.infer<typeof deleteResultSchema>;

export const clearResultSchema = z
  .object({ tenant: z.string(), deleted: count, deleted_bytes: count })
  .meta({ id: "ClearOriginalsResult" });
export type ClearResultWire = z.infer<typeof clearResultSchema>;

export const originalCountSchema = z.object({ count, bytes: count }).meta({ id: "OriginalCount" });
export type OriginalCountWire = z.infer<typeof originalCountSchema>;

export const storeResultSchema = z
  .object({
    hash: z.string(),
    tenant: z.string(),
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
