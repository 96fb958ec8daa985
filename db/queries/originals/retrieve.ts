// Retrieval by full hash or unique prefix, for agents: counts as a retrieval, refreshes
// recency, and answers a miss with the reason (unknown, evicted, expired, ambiguous).
import "server-only";
import { recordRetrieval, type RetrievalOutcome } from "@/lib/observability/metrics";
import { sql } from "drizzle-orm";
import { getDb } from "../../index";
import { col, onlyRow, queryRows, type RowOf } from "../../sql";
import type { Executor } from "../../types";
import { ORIGINAL_STATUSES } from "@/lib/schemas/originals";
import { ApiError } from "@/lib/errors";
import {
  FULL_HASH_LENGTH,
  ambiguousMessage,
  expiryReason,
  goneMessage,
  hourOf,
  requireHashKey,
  unknownMessage,
  type OriginalsCounts,
  type CcrMetric,
  type MissReason,
} from "@/lib/originals/rules";
import type { OriginalSummaryWire, PeekedOriginalWire, RetrievedOriginalWire } from "@/lib/schemas/originals";
import {
  type OriginalsOptions,
  SUMMARY_COLUMNS,
  SUMMARY_ROW,
  toSummaryWire,
  ts,
  keyMatches,
  bump,
  ALL_TIME,
  must,
  DEFAULT_TENANT,
  startsWith,
  altStartsWith,
} from "./shared";
import { tombstone } from "./eviction";
import { recordGoneMarkerFindings } from "../marker-findings";
import { recordIntegrityFindings } from "@/lib/observability/metrics";
import { cachedOriginalFor, rememberOriginal } from "@/lib/originals/content-cache";

const MAX_CANDIDATES = 10;

function missError(reason: MissReason, key: string, extra: Record<string, unknown> = {}): ApiError {
  if (reason === "unknown")
    return new ApiError("unknown_hash", unknownMessage(key), { extra: { hash: key, retryable: false } });
  if (reason === "ambiguous") {
    const candidates = (extra.candidates as unknown[]) ?? [];
    return new ApiError(
      "ambiguous_hash",
      ambiguousMessage(key, candidates.length, candidates.length >= MAX_CANDIDATES),
      {
        extra: { hash: key, retryable: false, ...extra },
      },
    );
  }
  const goneAt = extra.gone_at as string;
  return new ApiError(
    reason,
    goneMessage(extra.hash as string, reason, new Date(goneAt), (extra.reason as string | null) ?? null),
    {
      extra: { retryable: false, ...extra },
    },
  );
}

async function countMiss(
  executor: Executor,
  now: Date,
  reason: MissReason,
  more: Partial<OriginalsCounts> = {},
): Promise<void> {
  const metric: CcrMetric = `miss_${reason}`;
  await bump(executor, now, { ...more, [metric]: 1 });
}

export interface RetrieveOptions extends OriginalsOptions {
  /** The namespace of keys to look in (default `""`). */
  tenant?: string;
}

const CANDIDATE_ROW = { hash: col.text, tenant: col.text, status: col.oneOf(ORIGINAL_STATUSES) };
export type Candidate = RowOf<typeof CANDIDATE_ROW>;

/**
 * Resolves a full hash or a unique prefix of at least 12 hex characters (or an alternate
 * MD5 / BLAKE3 key) within a tenant, without touching recency or counters. With `tenant`
 * null it looks in every tenant (the dashboard): one original stored by several tenants is
 * one text, answered from the default tenant's entry, else the latest stored. `ambiguous`
 * lists up to MAX_CANDIDATES candidates.
 */
export async function resolveKey(
  executor: Executor,
  key: string,
  tenant: string | null = DEFAULT_TENANT,
): Promise<{ hash: string; tenant: string } | { ambiguous: Candidate[] } | null> {
  const full = key.length === FULL_HASH_LENGTH;
  const rows =
    tenant === null
      ? await queryRows(
          executor,
          sql`select o.hash, o.tenant, o.status from originals o
            where o.hash in (
              (select hash from originals where ${full ? sql`hash = ${key}` : startsWith(key)} limit ${MAX_CANDIDATES * 4})
              union
              (select hash from originals where ${altStartsWith(key)} limit ${MAX_CANDIDATES * 4}))
            order by o.hash, (o.tenant = ${DEFAULT_TENANT}) desc, o.created_at desc, o.tenant limit ${MAX_CANDIDATES * 4}`,
          CANDIDATE_ROW,
        )
      : await queryRows(
          executor,
          // Sorted after the limit: ordering inside would pull the scan off the pattern index.
          sql`select o.hash, o.tenant, o.status from originals o
            where o.tenant = ${tenant} and o.hash in (${keyMatches(tenant, key, full, MAX_CANDIDATES)})
            order by o.hash limit ${MAX_CANDIDATES}`,
          CANDIDATE_ROW,
        );
  // One candidate per hash: the first in the order above.
  const byHash = new Map<string, Candidate>();
  for (const r of rows) if (!byHash.has(r.hash)) byHash.set(r.hash, r);
  const candidates = [...byHash.values()].slice(0, MAX_CANDIDATES);
  const [only, ...others] = candidates;
  if (!only) return null;
  if (others.length > 0) return { ambiguous: candidates };
  return { hash: only.hash, tenant: only.tenant };
}

/**
 * The `headroom_retrieve` call: returns the original and refreshes its recency, counting
 * the retrieval and the tokens it puts back into the context. A miss is counted by reason
 * and answered 404 (never stored), 409 (ambiguous prefix) or 410 (evicted or expired, with
 * when and why).
 */
export async function retrieveOriginal(rawKey: string, options: RetrieveOptions = {}): Promise<RetrievedOriginalWire> {
  return counted(() => retrieve(rawKey, options, { text: true, metadata: null }) as Promise<RetrievedOriginalWire>);
}

/**
 * A retrieval that the client served itself from a peek (Headroom's CCR store reads an entry,
 * then writes it back to count the access): counted and refreshing recency as a retrieval
 * here is, without sending the text again. `metadata` replaces the entry's when given.
 */
export async function recordClientRetrieval(
  rawKey: string,
  metadata: Record<string, unknown> | null,
  options: RetrieveOptions = {},
): Promise<OriginalSummaryWire> {
  return counted(() => retrieve(rawKey, options, { text: false, metadata }));
}

async function counted<T>(run: () => Promise<T>): Promise<T> {
  try {
    const found = await run();
    recordRetrieval("hit");
    return found;
  } catch (error) {
    const outcome = error instanceof ApiError ? MISS_OUTCOME[error.code] : undefined;
    if (outcome) recordRetrieval(outcome);
    throw error;
  }
}

/**
 * What a key that names nothing stored is answered, without looking: the answer to every key
 * for a caller who may not read originals, so that it learns neither which entry a prefix
 * names nor that one exists. A key of the wrong form is still 422. Nothing is counted.
 */
export function notStoredError(rawKey: string): ApiError {
  return missError("unknown", requireHashKey(rawKey).key);
}

/**
 * The entry a key names, with both texts, as a retrieval would answer it but counting
 * nothing and leaving recency alone: for a client that checks or reads its own entries
 * (Headroom's `get` and `exists`) without each look being a retrieval. Misses answer as a
 * retrieval's do, uncounted.
 */
export async function peekOriginal(rawKey: string, options: RetrieveOptions = {}): Promise<PeekedOriginalWire> {
  const now = options.now ?? new Date();
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const parsed = requireHashKey(rawKey);
  // The primary: a client peeks at what it has just stored.
  const db = await getDb();
  const resolved = await resolveKey(db, parsed.key, tenant);
  if (resolved === null) throw missError("unknown", parsed.key);
  if ("ambiguous" in resolved) throw missError("ambiguous", parsed.key, { candidates: resolved.ambiguous });
  const [row] = await queryRows(
    db,
    sql`select ${SUMMARY_COLUMNS}, original, compressed from originals where tenant = ${tenant} and hash = ${resolved.hash}`,
    { ...SUMMARY_ROW, original: col.text.nullable(), compressed: col.text.nullable() },
  );
  if (!row) throw missError("unknown", parsed.key);
  const summary = toSummaryWire(row, now);
  if (summary.status !== "live") {
    throw missError(summary.status, parsed.key, {
      hash: summary.hash,
      gone_at: must(summary.gone_at),
      reason: summary.gone_reason,
      size_bytes: summary.size_bytes,
    });
  }
  // A live entry keeps its original (tombstoning is what drops it).
  return { ...summary, original: must(row.original), compressed: row.compressed };
}

// A malformed key (422) is not a retrieval attempt and is not counted.
const MISS_OUTCOME: Partial<Record<ApiError["code"], RetrievalOutcome>> = {
  unknown_hash: "unknown",
  ambiguous_hash: "ambiguous",
  evicted: "evicted",
  expired: "expired",
};

async function retrieve(
  rawKey: string,
  options: RetrieveOptions,
  what: { text: boolean; metadata: Record<string, unknown> | null },
): Promise<RetrievedOriginalWire | OriginalSummaryWire> {
  const now = options.now ?? new Date();
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const newMetadata = what.metadata === null ? null : JSON.stringify(what.metadata);
  const parsed = requireHashKey(rawKey);
  const db = await getDb();
  // An original in memory is not read again: the statement returns its text only for another hash.
  const cached = what.text ? cachedOriginalFor(parsed.key) : null;

  // The hot path is one statement, one round trip: resolving the key, the recency update,
  // the counters and the read commit together. Its commit does not wait for the WAL flush
  // (`set_config(..., true)` lasts only for this statement's own transaction): a crash could
  // lose the last moment's recency and counts, never an original, and the flush would cost
  // each retrieval as much as reading the row. The setting is referenced in the update so
  // that it is evaluated. A key naming none or several entries updates nothing.
  const [hit] = await queryRows(
    db,
    sql`
      with async_commit as (
        select set_config('synchronous_commit', 'off', true) as setting
      ),
      matches as (
        select hash from (${keyMatches(tenant, parsed.key, parsed.full, 2)}) as m limit 2
      ),
      hit as (
        update originals set
          retrieval_count = retrieval_count + 1,
          last_retrieved_at = ${ts(now)},
          recency_at = greatest(recency_at, ${ts(now)}),
          metadata = coalesce(${newMetadata}::jsonb, metadata)
        where tenant = ${tenant} and hash = (select hash from matches where (select count(*) from matches) = 1)
          and status = 'live' and (expires_at is null or expires_at > ${ts(now)})
          and (select setting from async_commit) is not null
        returning ${SUMMARY_COLUMNS},
          case when ${sql.raw(what.text ? "true" : "false")} and hash is distinct from ${cached?.hash ?? null} then original end as original
      ),
      counted as (
        insert into ccr_counters (hour, metric, value)
        select h.hour, m.metric, m.value
        from hit
          cross join (values (${ts(ALL_TIME)}), (${ts(hourOf(now))})) as h(hour)
          cross join lateral (values
            ('retrieved', 1::bigint),
            ('retrieved_bytes', hit.size_bytes),
            ('tokens_respent', hit.retrieval_tokens)
          ) as m(metric, value)
        order by h.hour, m.metric
        on conflict (hour, metric) do update set value = ccr_counters.value + excluded.value
      )
      select * from hit`,
    { ...SUMMARY_ROW, original: col.text.nullable() },
  );
  if (hit) {
    if (!what.text) return toSummaryWire(hit, now);
    const original = hit.original === null && cached && cached.hash === hit.hash ? cached.original : must(hit.original);
    rememberOriginal(hit.hash, original);
    return { ...toSummaryWire(hit, now), original };
  }

  const resolved = await resolveKey(db, parsed.key, tenant);
  if (resolved === null) {
    await countMiss(db, now, "unknown");
    throw missError("unknown", parsed.key);
  }
  if ("ambiguous" in resolved) {
    await countMiss(db, now, "ambiguous");
    throw missError("ambiguous", parsed.key, { candidates: resolved.ambiguous });
  }
  const hash = resolved.hash;

  // A miss is answered only after its transaction commits: the miss counter and a lazily
  // marked expiry must survive the error response.
  const outcome = await db.transaction(async (tx): Promise<RetrievedOriginalWire | OriginalSummaryWire | ApiError> => {
    const [row] = await queryRows(
      tx,
      sql`select ${SUMMARY_COLUMNS} from originals where tenant = ${tenant} and hash = ${hash} for update`,
      SUMMARY_ROW,
    );
    if (!row) {
      await countMiss(tx, now, "unknown");
      return missError("unknown", parsed.key);
    }
    let status = row.status;
    let goneAt = row.gone_at;
    let reason = row.gone_reason;
    if (status === "live") {
      const expiresAt = row.expires_at;
      if (expiresAt === null || expiresAt > now) {
        // Stored again between our two reads: answer it rather than call it a miss.
        return retrieveAfterRace(tx, tenant, hash, now, what.text, newMetadata);
      }
      // Expired by time but not yet swept: mark it now, so it reads the same everywhere.
      reason = expiryReason(row.ttl_seconds, expiresAt);
      goneAt = expiresAt;
      await tombstone(tx, "expired", [{ tenant, hash, goneAt: expiresAt, reason }]);
      status = "expired";
    }
    const gone = status as "evicted" | "expired";
    // An agent asks for an original that has gone: the passes whose markers named it point
    // nowhere (one just marked expired above was judged by tombstone already).
    if (tenant === DEFAULT_TENANT && row.status !== "live") {
      recordIntegrityFindings(
        await recordGoneMarkerFindings(tx, [{ hash, status: gone, gone_at: must(goneAt), reason, at: now }]),
      );
    }
    await countMiss(tx, now, gone);
    return missError(gone, parsed.key, {
      hash,
      gone_at: must(goneAt).toISOString(),
      reason,
      size_bytes: row.size_bytes,
    });
  });
  if (outcome instanceof ApiError) throw outcome;
  return outcome;
}

async function retrieveAfterRace(
  tx: Executor,
  tenant: string,
  hash: string,
  now: Date,
  text: boolean,
  metadata: string | null,
): Promise<RetrievedOriginalWire | OriginalSummaryWire> {
  const row = onlyRow(
    await queryRows(
      tx,
      sql`
      update originals set retrieval_count = retrieval_count + 1, last_retrieved_at = ${ts(now)},
        recency_at = greatest(recency_at, ${ts(now)}), metadata = coalesce(${metadata}::jsonb, metadata)
      where tenant = ${tenant} and hash = ${hash} returning ${SUMMARY_COLUMNS}, original`,
      { ...SUMMARY_ROW, original: col.text.nullable() },
    ),
  );
  await bump(tx, now, { retrieved: 1, retrieved_bytes: row.size_bytes, tokens_respent: row.retrieval_tokens });
  if (!text) return toSummaryWire(row, now);
  return { ...toSummaryWire(row, now), original: must(row.original) };
}
