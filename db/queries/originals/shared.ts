// Shared by the originals modules: the clock and configuration, the summary columns and
// their wire shape, the hash-prefix range and the hourly counters.
import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "../../types";
import type { OriginalStatus } from "@/lib/schemas/originals";
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
export const SUMMARY_COLUMNS = sql.raw(
  [
    "hash",
    "tenant",
    "status",
    "size_bytes",
    "compressed_size_bytes",
    "content_type",
    "tool_name",
    "chain_id",
    "pass_id",
    "original_items",
    "compressed_items",
    "original_tokens",
    "compressed_tokens",
    "tokens_saved",
    "retrieval_tokens",
    "tokens_estimated",
    "ttl_seconds",
    "created_at",
    "expires_at",
    "last_retrieved_at",
    "retrieval_count",
    "store_count",
    "gone_at",
    "gone_reason",
    "metadata",
  ].join(", "),
);

export type RawRow = Record<string, unknown>;

// postgres.js answers bigint as strings and PGlite as numbers; both answer timestamptz as Date.
export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const date = (v: unknown): Date | null =>
  v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v));
export const iso = (v: unknown): string | null => date(v)?.toISOString() ?? null;
/** A NOT NULL column's value: null here would be a schema bug, not data. */
export function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error("a NOT NULL column read as null");
  return value;
}

/** A jsonb column: postgres.js answers it parsed, PGlite too; a string would be a driver quirk. */
function jsonValue(v: unknown): Record<string, unknown> | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return JSON.parse(v) as Record<string, unknown>;
  return v as Record<string, unknown>;
}

export function toSummaryWire(r: RawRow, now: Date): OriginalSummaryWire {
  const expiresAt = date(r.expires_at);
  const status = displayStatus(r.status as OriginalStatus, expiresAt, now);
  return {
    hash: r.hash as string,
    tenant: (r.tenant as string | undefined) ?? "",
    status,
    size_bytes: must(num(r.size_bytes)),
    compressed_size_bytes: num(r.compressed_size_bytes),
    content_type: (r.content_type as string | null) ?? null,
    tool_name: (r.tool_name as string | null) ?? null,
    chain_id: (r.chain_id as string | null) ?? null,
    pass_id: (r.pass_id as string | null) ?? null,
    original_items: num(r.original_items),
    compressed_items: num(r.compressed_items),
    original_tokens: num(r.original_tokens),
    compressed_tokens: num(r.compressed_tokens),
    tokens_saved: num(r.tokens_saved),
    retrieval_tokens: must(num(r.retrieval_tokens)),
    tokens_estimated: Boolean(r.tokens_estimated),
    ttl_seconds: num(r.ttl_seconds),
    created_at: must(iso(r.created_at)),
    expires_at: expiresAt?.toISOString() ?? null,
    last_retrieved_at: iso(r.last_retrieved_at),
    retrieval_count: must(num(r.retrieval_count)),
    store_count: must(num(r.store_count)),
    // A live row past its expiry reads as expired, gone when its TTL ran out.
    gone_at: status === "expired" && r.status === "live" ? (expiresAt?.toISOString() ?? null) : iso(r.gone_at),
    gone_reason:
      status === "expired" && r.status === "live" && expiresAt
        ? expiryReason(num(r.ttl_seconds), expiresAt)
        : ((r.gone_reason as string | null) ?? null),
    metadata: jsonValue(r.metadata),
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
