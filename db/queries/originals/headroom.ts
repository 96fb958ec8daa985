// The store figures Headroom's `/v1/retrieve/stats` reports, read from the same store and
// counters as the native endpoints, so both APIs report one store.
import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../../index";
import { col, onlyRow, queryRows } from "../../sql";
import { MARKER_KEY_LENGTH } from "@/lib/originals/rules";
import { RECENT_RETRIEVALS, type RecentRetrieval, type StoreStats } from "@/lib/originals/headroom/shapes";
import { ALL_TIME, type OriginalsOptions, getOriginalsConfig, ts } from "./shared";

export async function getHeadroomStoreStats(
  options: OriginalsOptions = {},
): Promise<{ stats: StoreStats; recent: RecentRetrieval[] }> {
  const now = options.now ?? new Date();
  const config = options.config ?? getOriginalsConfig();
  const db = await getDb();
  const live = sql`status = 'live' and (expires_at is null or expires_at > ${ts(now)})`;
  const [store, recent] = await Promise.all([
    queryRows(
      db,
      sql`
        select count(*) as entry_count,
          coalesce(sum(coalesce(original_tokens, retrieval_tokens)), 0) as original_tokens,
          coalesce(sum(compressed_tokens), 0) as compressed_tokens,
          coalesce(sum(size_bytes + coalesce(compressed_size_bytes, 0)), 0) as bytes_used,
          (select coalesce(sum(value), 0) from ccr_counters where hour = ${ts(ALL_TIME)} and metric = 'retrieved') as retrievals
        from originals where ${live}`,
      {
        entry_count: col.int,
        original_tokens: col.int,
        compressed_tokens: col.int,
        bytes_used: col.int,
        retrievals: col.int,
      },
    ),
    // The live-recency index serves this: a retrieval moves recency_at to the retrieval time.
    queryRows(
      db,
      sql`
        select hash, alt_hash, tool_name, original_items, last_retrieved_at from originals
        where status = 'live' and last_retrieved_at is not null
        order by recency_at desc, hash desc limit ${RECENT_RETRIEVALS}`,
      {
        hash: col.text,
        alt_hash: col.text.nullable(),
        tool_name: col.text.nullable(),
        original_items: col.int.nullable(),
        last_retrieved_at: col.date,
      },
    ),
  ]);
  const row = onlyRow(store);
  return {
    stats: {
      entryCount: row.entry_count,
      maxEntries: null,
      defaultTtlSeconds: config.defaultTtlSeconds,
      totalOriginalTokens: row.original_tokens,
      totalCompressedTokens: row.compressed_tokens,
      totalRetrievals: row.retrievals,
      maxBytes: config.maxBytes,
      bytesUsed: row.bytes_used,
    },
    recent: recent.map((r) => ({
      // The key a marker would carry: the alternate one when the original was stored under it.
      hash: (r.alt_hash ?? r.hash).slice(0, MARKER_KEY_LENGTH),
      toolName: r.tool_name,
      originalItems: r.original_items,
      retrievedAt: r.last_retrieved_at,
    })),
  };
}
