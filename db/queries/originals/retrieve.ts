// Retrieval by full hash or unique prefix, for agents: counts as a retrieval, refreshes
// recency, and answers a miss with the reason (unknown, evicted, expired, ambiguous).
import "server-only";
import { recordRetrieval, type RetrievalOutcome } from "@/lib/observability/metrics";
import { sql } from "drizzle-orm";
import { getDb } from "../../index";
import { onlyRow, queryRows } from "../../sql";
import type { Executor } from "../../types";
import type { OriginalStatus } from "@/lib/schemas/originals";
import { ApiError } from "@/lib/errors";
import {
  FULL_HASH_LENGTH,
  ambiguousMessage,
  expiryReason,
  goneMessage,
  hourOf,
  parseHashKey,
  unknownMessage,
  type OriginalsCounts,
  type CcrMetric,
  type MissReason,
} from "@/lib/originals/rules";
import type { RetrievedOriginalWire } from "@/lib/schemas/originals";
import {
  type OriginalsOptions,
  SUMMARY_COLUMNS,
  type RawRow,
  num,
  date,
  toSummaryWire,
  ts,
  keyMatches,
  bump,
  ALL_TIME,
  must,
} from "./shared";
import { tombstone } from "./eviction";
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

/**
 * Resolves a full hash or a unique prefix of at least 12 hex characters, without touching
 * recency or counters. `ambiguous` lists up to MAX_CANDIDATES candidates.
 */
export async function resolveKey(
  executor: Executor,
  key: string,
): Promise<{ hash: string } | { ambiguous: { hash: string; status: OriginalStatus }[] } | null> {
  const rows = await queryRows<{ hash: string; status: OriginalStatus }>(
    executor,
    // Sorted after the limit: ordering inside would pull the scan off the pattern index.
    sql`select o.hash, o.status from originals o
      where o.hash in (${keyMatches(key, key.length === FULL_HASH_LENGTH, MAX_CANDIDATES)})
      order by o.hash limit ${MAX_CANDIDATES}`,
  );
  const [only, ...others] = rows;
  if (!only) return null;
  if (others.length > 0) return { ambiguous: rows };
  return { hash: only.hash };
}

/**
 * The `headroom_retrieve` call: returns the original and refreshes its recency, counting
 * the retrieval and the tokens it puts back into the context. A miss is counted by reason
 * and answered 404 (never stored), 409 (ambiguous prefix) or 410 (evicted or expired, with
 * when and why).
 */
export async function retrieveOriginal(rawKey: string, options: OriginalsOptions = {}): Promise<RetrievedOriginalWire> {
  try {
    const found = await retrieve(rawKey, options);
    recordRetrieval("hit");
    return found;
  } catch (error) {
    const outcome = error instanceof ApiError ? MISS_OUTCOME[error.code] : undefined;
    if (outcome) recordRetrieval(outcome);
    throw error;
  }
}

// A malformed key (422) is not a retrieval attempt and is not counted.
const MISS_OUTCOME: Partial<Record<ApiError["code"], RetrievalOutcome>> = {
  unknown_hash: "unknown",
  ambiguous_hash: "ambiguous",
  evicted: "evicted",
  expired: "expired",
};

async function retrieve(rawKey: string, options: OriginalsOptions): Promise<RetrievedOriginalWire> {
  const now = options.now ?? new Date();
  const parsed = parseHashKey(rawKey);
  if (!parsed.ok) {
    throw new ApiError("validation_failed", `The hash ${parsed.message}.`, {
      issues: [{ path: "hash", message: parsed.message }],
    });
  }
  const db = await getDb();
  // An original in memory is not read again: the statement returns its text only for another hash.
  const cached = cachedOriginalFor(parsed.key);

  // The hot path is one statement, one round trip: resolving the key, the recency update,
  // the counters and the read commit together. Its commit does not wait for the WAL flush
  // (`set_config(..., true)` lasts only for this statement's own transaction): a crash could
  // lose the last moment's recency and counts, never an original, and the flush would cost
  // each retrieval as much as reading the row. The setting is referenced in the update so
  // that it is evaluated. A key naming none or several entries updates nothing.
  const [hit] = await queryRows<RawRow>(
    db,
    sql`
      with async_commit as (
        select set_config('synchronous_commit', 'off', true) as setting
      ),
      matches as (
        select hash from (${keyMatches(parsed.key, parsed.full, 2)}) as m limit 2
      ),
      hit as (
        update originals set
          retrieval_count = retrieval_count + 1,
          last_retrieved_at = ${ts(now)},
          recency_at = greatest(recency_at, ${ts(now)})
        where hash = (select hash from matches where (select count(*) from matches) = 1)
          and status = 'live' and (expires_at is null or expires_at > ${ts(now)})
          and (select setting from async_commit) is not null
        returning ${SUMMARY_COLUMNS}, case when hash = ${cached?.hash ?? null} then null else original end as original
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
  );
  if (hit) {
    const original =
      hit.original === null && cached && cached.hash === hit.hash ? cached.original : (hit.original as string);
    rememberOriginal(hit.hash as string, original);
    return { ...toSummaryWire(hit, now), original };
  }

  const resolved = await resolveKey(db, parsed.key);
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
  const outcome = await db.transaction(async (tx): Promise<RetrievedOriginalWire | ApiError> => {
    const [row] = await queryRows<RawRow>(
      tx,
      sql`select ${SUMMARY_COLUMNS} from originals where hash = ${hash} for update`,
    );
    if (!row) {
      await countMiss(tx, now, "unknown");
      return missError("unknown", parsed.key);
    }
    let status = row.status as OriginalStatus;
    let goneAt = date(row.gone_at);
    let reason = (row.gone_reason as string | null) ?? null;
    if (status === "live") {
      const expiresAt = date(row.expires_at);
      if (expiresAt === null || expiresAt > now) {
        // Stored again between our two reads: answer it rather than call it a miss.
        return retrieveAfterRace(tx, hash, now);
      }
      // Expired by time but not yet swept: mark it now, so it reads the same everywhere.
      reason = expiryReason(num(row.ttl_seconds), expiresAt);
      goneAt = expiresAt;
      await tombstone(tx, "expired", [{ hash, goneAt: expiresAt, reason }]);
      status = "expired";
    }
    const gone = status as "evicted" | "expired";
    await countMiss(tx, now, gone);
    return missError(gone, parsed.key, {
      hash,
      gone_at: must(goneAt).toISOString(),
      reason,
      size_bytes: num(row.size_bytes),
    });
  });
  if (outcome instanceof ApiError) throw outcome;
  return outcome;
}

async function retrieveAfterRace(tx: Executor, hash: string, now: Date): Promise<RetrievedOriginalWire> {
  const row = onlyRow(
    await queryRows<RawRow>(
      tx,
      sql`
      update originals set retrieval_count = retrieval_count + 1, last_retrieved_at = ${ts(now)}, recency_at = greatest(recency_at, ${ts(now)})
      where hash = ${hash} returning ${SUMMARY_COLUMNS}, original`,
    ),
  );
  await bump(tx, now, {
    retrieved: 1,
    retrieved_bytes: must(num(row.size_bytes)),
    tokens_respent: must(num(row.retrieval_tokens)),
  });
  return { ...toSummaryWire(row, now), original: row.original as string };
}
