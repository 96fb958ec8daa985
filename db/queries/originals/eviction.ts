// The CCR store's budget and expiry: sweeps expired entries and evicts the least recently
// retrieved until the store fits CCR_MAX_BYTES, leaving tombstones.
import "server-only";
import { type EvictionReason, recordEvictions, recordIntegrityFindings } from "@/lib/observability/metrics";
import { recordGoneMarkerFindings } from "../marker-findings";
import { sql } from "drizzle-orm";
import { getDb } from "../../index";
import { col, onlyRow, queryRows } from "../../sql";
import type { Executor } from "../../types";
import { evictionReason, expiryReason, hourOf } from "@/lib/originals/rules";
import { bytesOverBudget, planEviction, type EvictionCandidate } from "@/lib/originals/eviction";
import { type OriginalsOptions, getOriginalsConfig, ts, bump, ALL_TIME, must } from "./shared";

// Any fixed number: one evictor at a time, so two writers never both evict for the same overshoot.
const EVICTION_LOCK_KEY = 0x63637231;
const SWEEP_BATCH = 500;
const EVICTION_BATCH = 200;
const MAX_EVICTIONS_PER_CALL = 5_000;

/**
 * Marks live entries past their TTL as expired, then evicts the least recently retrieved
 * until the live bytes fit the budget. Bounded per call so a large backlog (a lowered
 * budget) is worked off over several writes instead of stalling one. Rows a retrieval is
 * touching are skipped, not waited for.
 */
export async function enforceStoreLimits(
  options: OriginalsOptions = {},
): Promise<{ expired: number; evicted: number }> {
  const now = options.now ?? new Date();
  const config = options.config ?? getOriginalsConfig();
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${EVICTION_LOCK_KEY})`);

    // Raw SQL with the literal 'live': the partial indexes match it under a generic plan.
    const due = await queryRows(
      tx,
      sql`
        select tenant, hash, ttl_seconds, expires_at from originals
        where status = 'live' and expires_at is not null and expires_at <= ${ts(now)}
        order by expires_at, hash, tenant limit ${SWEEP_BATCH}
        for update skip locked`,
      { tenant: col.text, hash: col.text, ttl_seconds: col.int.nullable(), expires_at: col.date },
    );
    await tombstone(
      tx,
      "expired",
      due.map((r) => ({
        tenant: r.tenant,
        hash: r.hash,
        goneAt: r.expires_at,
        reason: expiryReason(r.ttl_seconds, r.expires_at),
      })),
    );

    // The all-time counters give the live bytes in three row reads; the exact sum over live
    // rows runs only when they say the budget is exceeded, that is when eviction runs anyway.
    const estimate = await queryRows(
      tx,
      sql`
        select coalesce(sum(case metric when 'stored_bytes' then value else -value end), 0) as live_bytes
        from ccr_counters where hour = ${ts(ALL_TIME)} and metric in ('stored_bytes', 'evicted_bytes', 'expired_bytes')`,
      { live_bytes: col.int },
    );
    let over = bytesOverBudget(onlyRow(estimate).live_bytes, config.maxBytes);
    if (over > 0) {
      const usage = await queryRows(
        tx,
        sql`select coalesce(sum(size_bytes + coalesce(compressed_size_bytes, 0)), 0) as live_bytes from originals where status = 'live'`,
        { live_bytes: col.int },
      );
      over = bytesOverBudget(onlyRow(usage).live_bytes, config.maxBytes);
    }
    let evicted = 0;
    while (over > 0 && evicted < MAX_EVICTIONS_PER_CALL) {
      const rows = await queryRows(
        tx,
        sql`
          select tenant, hash, size_bytes, compressed_size_bytes, recency_at, last_retrieved_at, created_at from originals
          where status = 'live'
          order by recency_at, hash, tenant limit ${EVICTION_BATCH}
          for update skip locked`,
        {
          tenant: col.text,
          hash: col.text,
          size_bytes: col.int,
          compressed_size_bytes: col.int.nullable(),
          recency_at: col.date,
          last_retrieved_at: col.date.nullable(),
          created_at: col.date,
        },
      );
      if (rows.length === 0) break;
      // One id per entry: the hash (fixed-width hex) then the tenant, so ties still break on the hash.
      const idOf = (r: { hash: string; tenant: string }) => `${r.hash}\t${r.tenant}`;
      const byId = new Map(rows.map((r) => [idOf(r), r]));
      const candidates: EvictionCandidate[] = rows.map((r) => ({
        hash: idOf(r),
        bytes: r.size_bytes + (r.compressed_size_bytes ?? 0),
        recencyAt: r.recency_at,
      }));
      const { victims, freedBytes } = planEviction(candidates, over);
      await tombstone(
        tx,
        "evicted",
        victims.map((v) => {
          const r = must(byId.get(v.hash));
          return {
            tenant: r.tenant,
            hash: r.hash,
            goneAt: now,
            reason: evictionReason(config.maxBytes, r.last_retrieved_at, r.created_at),
          };
        }),
      );
      over -= freedBytes;
      evicted += victims.length;
    }
    return { expired: due.length, evicted };
  });
}

/**
 * Drops the texts and keeps hash, size, when and why; counts each event in the hour it
 * happened (an expiry when the TTL ran out, not when a sweep noticed), in the same transaction.
 * A client's deletion is an eviction by its cause (`deleted`): it frees the same bytes.
 */
export async function tombstone(
  tx: Executor,
  status: "evicted" | "expired",
  rows: { tenant: string; hash: string; goneAt: Date; reason: string }[],
  cause: EvictionReason = status === "evicted" ? "budget" : "ttl",
): Promise<{ tenant: string; hash: string; bytes: number }[]> {
  if (rows.length === 0) return [];
  const given = rows.map((r) => ({
    tenant: r.tenant,
    hash: r.hash,
    gone_at: r.goneAt.toISOString(),
    reason: r.reason,
  }));
  const gone = await queryRows(
    tx,
    sql`
      update originals o set status = ${status}, original = null, compressed = null, gone_at = t.gone_at, gone_reason = t.reason
      from json_to_recordset(${JSON.stringify(given)}::json)
        as t(tenant text, hash text, gone_at timestamptz, reason text)
      where o.tenant = t.tenant and o.hash = t.hash and o.status = 'live'
      returning o.tenant, o.hash, o.size_bytes + coalesce(o.compressed_size_bytes, 0) as bytes`,
    { tenant: col.text, hash: col.text, bytes: col.int },
  );
  // Counted in the transaction that tombstones: one that then rolls back (rare: eviction
  // runs in its own) would leave the process counter one step ahead of the store.
  recordEvictions(cause, gone.length);
  const idOf = (r: { tenant: string; hash: string }) => `${r.hash}\t${r.tenant}`;
  const goneAt = new Map(rows.map((r) => [idOf(r), r.goneAt]));
  const byHour = new Map<number, { count: number; bytes: number }>();
  for (const r of gone) {
    const hour = hourOf(must(goneAt.get(idOf(r)))).getTime();
    const bucket = byHour.get(hour) ?? { count: 0, bytes: 0 };
    bucket.count += 1;
    bucket.bytes += r.bytes;
    byHour.set(hour, bucket);
  }
  for (const [hour, { count, bytes }] of [...byHour].sort(([a], [b]) => a - b)) {
    await bump(
      tx,
      new Date(hour),
      status === "evicted" ? { evictions: count, evicted_bytes: bytes } : { expiries: count, expired_bytes: bytes },
    );
  }
  // Chains still pointing at an original of the agents' namespace get a marker_expired finding.
  const reasonOf = new Map(rows.map((r) => [idOf(r), r.reason]));
  const markerKinds = await recordGoneMarkerFindings(
    tx,
    gone
      .filter((r) => r.tenant === "")
      .map((r) => ({
        hash: r.hash,
        status,
        gone_at: must(goneAt.get(idOf(r))),
        reason: reasonOf.get(idOf(r)) ?? null,
      })),
  );
  recordIntegrityFindings(markerKinds);
  return gone;
}
