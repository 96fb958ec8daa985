// Shared by the originals modules: the clock and configuration, the summary columns and
// their wire shape, the hash-prefix range and the hourly counters.
import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "../../types";
import { ORIGINAL_STATUSES } from "@/lib/schemas/originals";
import { col, columnList, type RowOf } from "../../sql";
import {
  CCR_METRICS,
  originalsConfigFromEnv,
  displayStatus,
  expiryReason,
  hourOf,
  type OriginalsConfig,
  type OriginalsCounts,
} from "@/lib/originals/rules";
import type { OriginalSummaryWire } from "@/lib/schemas/originals";
import { envRecord } from "@/lib/env";

/** Every function takes the clock from here, so tests move time instead of sleeping. */
export interface OriginalsOptions {
  now?: Date;
  config?: OriginalsConfig;
}

let reportedConfigProblems = false;

/** CCR_MAX_BYTES and CCR_TTL_SECONDS, read per call so an operator's change needs no code path. */
export function getOriginalsConfig(): OriginalsConfig {
  const { config, problems } = originalsConfigFromEnv(envRecord());
  if (problems.length > 0 && !reportedConfigProblems) {
    reportedConfigProblems = true;
    for (const problem of problems) console.error(`[floorline] ${problem}`);
  }
  return config;
}

// ---------------------------------------------------------------------------------------
// Wire shapes

// Everything but the texts: listing, eviction and tombstones never read the large columns.
export const SUMMARY_ROW = {
  hash: col.text,
  tenant: col.text,
  status: col.oneOf(ORIGINAL_STATUSES),
  size_bytes: col.int,
  compressed_size_bytes: col.int.nullable(),
  content_type: col.text.nullable(),
  tool_name: col.text.nullable(),
  chain_id: col.text.nullable(),
  pass_id: col.text.nullable(),
  original_items: col.int.nullable(),
  compressed_items: col.int.nullable(),
  original_tokens: col.int.nullable(),
  compressed_tokens: col.int.nullable(),
  tokens_saved: col.int.nullable(),
  retrieval_tokens: col.int,
  tokens_estimated: col.bool,
  ttl_seconds: col.int.nullable(),
  created_at: col.date,
  expires_at: col.date.nullable(),
  last_retrieved_at: col.date.nullable(),
  retrieval_count: col.int,
  store_count: col.int,
  gone_at: col.date.nullable(),
  gone_reason: col.text.nullable(),
  metadata: col.jsonObject.nullable(),
};
export type SummaryRow = RowOf<typeof SUMMARY_ROW>;

/** A value the code just put there (a map's own key): missing would be a bug, not data. */
export function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error("a value known to exist is missing");
  return value;
}
export const SUMMARY_COLUMNS = columnList(SUMMARY_ROW);

export function toSummaryWire(r: SummaryRow, now: Date): OriginalSummaryWire {
  const status = displayStatus(r.status, r.expires_at, now);
  // A live row past its expiry reads as expired, gone when its TTL ran out.
  const expiredNow = status === "expired" && r.status === "live" ? r.expires_at : null;
  return {
    hash: r.hash,
    tenant: r.tenant,
    status,
    size_bytes: r.size_bytes,
    compressed_size_bytes: r.compressed_size_bytes,
    content_type: r.content_type,
    tool_name: r.tool_name,
    chain_id: r.chain_id,
    pass_id: r.pass_id,
    original_items: r.original_items,
    compressed_items: r.compressed_items,
    original_tokens: r.original_tokens,
    compressed_tokens: r.compressed_tokens,
    tokens_saved: r.tokens_saved,
    retrieval_tokens: r.retrieval_tokens,
    tokens_estimated: r.tokens_estimated,
    ttl_seconds: r.ttl_seconds,
    created_at: r.created_at.toISOString(),
    expires_at: r.expires_at?.toISOString() ?? null,
    last_retrieved_at: r.last_retrieved_at?.toISOString() ?? null,
    retrieval_count: r.retrieval_count,
    store_count: r.store_count,
    gone_at: expiredNow ? expiredNow.toISOString() : (r.gone_at?.toISOString() ?? null),
    gone_reason: expiredNow ? expiryReason(r.ttl_seconds, expiredNow) : r.gone_reason,
    metadata: r.metadata,
  };
}

export const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Hashes starting with a hex prefix, as a byte-wise range on the pattern index. Keys are
 * lowercase hex, so every one that starts with `p` sorts in [p, p + "g"). A range stays
 * indexable under a generic prepared plan, where `like $1` would scan the table.
 */
export const startsWith = (prefix: string) => sql`(hash ~>=~ ${prefix} and hash ~<~ ${prefix + "g"})`;

/** The same over the alternate (MD5 or BLAKE3) keys, on their own partial pattern index. */
export const altStartsWith = (prefix: string) =>
  sql`(alt_hash is not null and alt_hash ~>=~ ${prefix} and alt_hash ~<~ ${`${prefix}g`})`;

/**
 * The sha256 keys of one tenant's originals a key names: by their own key (full or prefix) or
 * by an alternate key, each side on its own index. At most `limit` per side.
 */
export const keyMatches = (tenant: string, key: string, full: boolean, limit: number) => sql`
  (select hash from originals where tenant = ${tenant} and ${full ? sql`hash = ${key}` : startsWith(key)} limit ${limit})
  union
  (select hash from originals where tenant = ${tenant} and ${altStartsWith(key)} limit ${limit})`;

/** The default namespace of keys: agents' own originals, and every client that names no tenant. */
export const DEFAULT_TENANT = "";

// ---------------------------------------------------------------------------------------
// Counters

/** The counter rows at this "hour" hold all-time totals, so totals never sum over hours. */
export const ALL_TIME = new Date(0);

/**
 * Adds to this hour's counters and to the all-time totals inside the caller's transaction.
 * Rows go in one fixed order (all-time first, then by metric) so that two transactions
 * never take counter rows in opposite orders.
 */
export async function bump(executor: Executor, now: Date, counts: Partial<OriginalsCounts>): Promise<void> {
  const metrics = CCR_METRICS.filter((m) => counts[m]);
  if (metrics.length === 0) return;
  const rows = [ALL_TIME, hourOf(now)].flatMap((hour) =>
    metrics.map((metric) => ({ hour: hour.toISOString(), metric, value: counts[metric] })),
  );
  await executor.execute(sql`
    insert into ccr_counters (hour, metric, value)
    select c.hour, c.metric, c.value
    from json_to_recordset(${JSON.stringify(rows)}::json) as c(hour timestamptz, metric text, value bigint)
    on conflict (hour, metric) do update set value = ccr_counters.value + excluded.value`);
}

/** The status a row reads as now: a live row past its expiry is expired. */
export const statusExpr = (now: Date) =>
  sql`(case when status = 'live' and expires_at is not null and expires_at <= ${ts(now)} then 'expired' else status end)`;
