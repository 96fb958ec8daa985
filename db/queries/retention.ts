// Retention: chains whose last activity is older than the kept days go, with their passes,
// boundaries, traces and cached originals, in small batches of short transactions so that
// ingest never waits long. A chain being written is skipped (its lock is taken with a try,
// never waited for) and looked at again next round. The overview's roll-ups are left alone:
// the history keeps its counts.
import "server-only";
import { sql } from "drizzle-orm";
import { getDb, getReadDb, onlyRow, queryRows, type Db } from "../index";

const DAY_MS = 86_400_000;
// Any fixed number: one instance at a time works through the backlog.
const RETENTION_LOCK_KEY = 0x52657465;

const KINDS = ["chains", "passes", "boundaries", "traces", "originals"] as const;
type Deleted = Record<(typeof KINDS)[number], number>;

export interface RetentionRun extends Deleted {
  /** False when the batch limit stopped the run before the backlog was done. */
  complete: boolean;
}

/**
 * Deletes one batch: how many chains were due (some may have been skipped for their lock)
 * and what went. Null when another instance holds the retention lock.
 */
async function deleteBatch(db: Db, cutoff: Date, batchSize: number): Promise<{ due: number; deleted: Deleted } | null> {
  return db.transaction(async (tx) => {
    const { mine } = onlyRow(
      await queryRows<{ mine: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY}) as mine`),
    );
    if (!mine) return null;
    const candidates = await queryRows<{ chain_id: string }>(
      tx,
      sql`select chain_id from chains where last_activity_at < ${cutoff.toISOString()}::timestamptz
        order by last_activity_at, chain_id limit ${batchSize}`,
    );
    if (candidates.length === 0)
      return { due: 0, deleted: { chains: 0, passes: 0, boundaries: 0, traces: 0, originals: 0 } };
    // The ingest use cases' per-chain lock, tried and never waited for; once held, the chain
    // is looked at again, since a write may have committed in between.
    const deleted = await queryRows<{ chain_id: string }>(
      tx,
      sql`
        delete from chains where chain_id in (
          select c from json_array_elements_text(${JSON.stringify(candidates.map((c) => c.chain_id))}::json) as c
          where pg_try_advisory_xact_lock(hashtext('chain:' || c))
        ) and last_activity_at < ${cutoff.toISOString()}::timestamptz
        returning chain_id`,
    );
    const ids = JSON.stringify(deleted.map((d) => d.chain_id));
    const inChains = sql`(select json_array_elements_text(${ids}::json))`;
    const counted = await queryRows<Record<"passes" | "boundaries" | "traces" | "originals", number | string>>(
      tx,
      sql`
        with p as (delete from passes where chain_id in ${inChains} returning 1),
          b as (delete from boundaries where chain_id in ${inChains} returning 1),
          t as (delete from traces where chain_id in ${inChains} returning 1),
          o as (delete from originals where chain_id in ${inChains} returning 1)
        select (select count(*) from p) as passes, (select count(*) from b) as boundaries,
          (select count(*) from t) as traces, (select count(*) from o) as originals`,
    );
    const counts = onlyRow(counted);
    return {
      due: candidates.length,
      deleted: {
        chains: deleted.length,
        passes: Number(counts.passes),
        boundaries: Number(counts.boundaries),
        traces: Number(counts.traces),
        originals: Number(counts.originals),
      },
    };
  });
}

/**
 * Deletes what is older than `days` before `now`, `batchSize` chains per transaction, at
 * most `maxBatches` transactions per call (the worker calls again later).
 */
export async function deleteExpiredChains(options: {
  now: Date;
  days: number;
  batchSize?: number;
  maxBatches?: number;
}): Promise<RetentionRun> {
  const db = await getDb();
  const cutoff = new Date(options.now.getTime() - options.days * DAY_MS);
  const batchSize = options.batchSize ?? 500;
  const total: RetentionRun = { chains: 0, passes: 0, boundaries: 0, traces: 0, originals: 0, complete: true };
  for (let batch = 0; batch < (options.maxBatches ?? 20); batch++) {
    const done = await deleteBatch(db, cutoff, batchSize);
    if (!done) return total;
    for (const kind of KINDS) total[kind] += done.deleted[kind];
    if (done.due < batchSize) return total;
    // Let waiting writers in between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { ...total, complete: false };
}

/** What the overview says about retention: the oldest chain still kept. */
export async function getOldestActivity(): Promise<Date | null> {
  const db = await getReadDb();
  const [row] = await queryRows<{ oldest: Date | string | null }>(
    db,
    sql`select min(last_activity_at) as oldest from chains`,
  );
  return row?.oldest ? new Date(row.oldest) : null;
}
