import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { safeBigint, timestampMs } from "./columns";
import type { OriginalStatus } from "@/lib/schemas/originals";

/**
 * The CCR store: one row per tenant and original, keyed by the sha256 of its text. An
 * evicted or expired row drops its content but stays as a tombstone (hash, size, when, why),
 * so the key answers 410 for ever instead of looking like a typo.
 */
export const originals = pgTable(
  "originals",
  {
    /**
     * A namespace of keys (Headroom's tenant prefix): the same original stored by two tenants
     * is two entries, and clearing one tenant leaves the other. `""` is the default namespace.
     */
    tenant: text("tenant").notNull().default(""),
    hash: text("hash").notNull(),
    status: text("status").$type<OriginalStatus>().notNull(),
    /** Null once the entry is gone; only tombstone fields remain. */
    original: text("original"),
    compressed: text("compressed"),
    sizeBytes: safeBigint("size_bytes").notNull(),
    compressedSizeBytes: safeBigint("compressed_size_bytes"),
    contentType: text("content_type"),
    toolName: text("tool_name"),
    /**
     * A second key, for Headroom's compressors that key by MD5 or BLAKE3 (`hash_algorithm`):
     * the full hex digest under `altAlgorithm`, verified against the original when stored.
     */
    altHash: text("alt_hash"),
    altAlgorithm: text("alt_algorithm").$type<"md5" | "blake3">(),
    chainId: text("chain_id"),
    passId: text("pass_id"),
    originalItems: safeBigint("original_items"),
    compressedItems: safeBigint("compressed_items"),
    originalTokens: safeBigint("original_tokens"),
    compressedTokens: safeBigint("compressed_tokens"),
    /** Tokens this compression saved (given or estimated counts); null when the compressed side is unknown. */
    tokensSaved: safeBigint("tokens_saved"),
    /** Tokens one retrieval puts back into a context: the whole original. */
    retrievalTokens: safeBigint("retrieval_tokens").notNull(),
    /** True when a token count was estimated from bytes because the client sent none. */
    tokensEstimated: boolean("tokens_estimated").notNull().default(false),
    ttlSeconds: safeBigint("ttl_seconds"),
    createdAt: timestampMs("created_at").notNull(),
    expiresAt: timestampMs("expires_at"),
    lastRetrievedAt: timestampMs("last_retrieved_at"),
    /** The eviction key: the last retrieval, or the store time for an entry never retrieved. */
    recencyAt: timestampMs("recency_at").notNull(),
    retrievalCount: safeBigint("retrieval_count").notNull().default(0),
    storeCount: safeBigint("store_count").notNull().default(1),
    goneAt: timestampMs("gone_at"),
    goneReason: text("gone_reason"),
    /** The client's own fields for the entry (at most 16 KiB of JSON); the latest store's wins. */
    metadata: jsonb("metadata").$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ name: "originals_pkey", columns: [t.tenant, t.hash] }),
    // Prefix lookups are byte-wise ranges (~>=~, ~<~): the pattern opclass indexes them under any collation.
    index("originals_hash_prefix_idx").using("btree", t.hash.op("text_pattern_ops")),
    index("originals_alt_hash_prefix_idx")
      .using("btree", t.altHash.op("text_pattern_ops"))
      .where(sql`${t.altHash} is not null`),
    index("originals_live_recency_idx").on(t.recencyAt, t.hash).where(sql`${t.status} = 'live'`),
    index("originals_live_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'live' and ${t.expiresAt} is not null`),
    index("originals_created_idx").on(t.createdAt, t.hash),
    index("originals_chain_pass_idx").on(t.chainId, t.passId),
  ],
);

/**
 * CCR counters per hour (UTC hour start) and metric, incremented in the transaction of the
 * event they count. The rows at the Unix epoch hold the all-time totals.
 */
export const ccrCounters = pgTable(
  "ccr_counters",
  {
    hour: timestampMs("hour").notNull(),
    metric: text("metric").notNull(),
    value: safeBigint("value").notNull(),
  },
  (t) => [primaryKey({ name: "ccr_counters_pkey", columns: [t.hour, t.metric] })],
);
