// Retention: chains whose last activity is older than the kept days go, with their passes,
// sources, boundaries, traces, trace rejections and cached originals, in small batches of short transactions so that
// the other writers of summaries wait little (the pass ingest never waits: it takes no lock
// retention holds). A chain with passes not yet folded into its summary stays, and is looked
// at again next round. A class's policy may keep its chains for days of its own. The overview's roll-ups are left alone: the history keeps its counts.
import "server-only";
import { sql } from "drizzle-orm";
import { getDb, getReadDb } from "../index";
import { onlyRow, queryRows } from "../sql";
import type { Db } from "../types";
import { lockSummaries } from "./chain-summary";

const DAY_MS = 86_400_000;
// Any fixed number: one instance at a time works through the backlog.
const RETENTION_LOCK_KEY = 0x52657465;

const KINDS = ["chains", "passes", "boundaries", "traces", "rejections", "originals"] as const;
type Deleted = Record<(typeof KINDS)[number], number>;

export interface RetentionRun extends Deleted {
  /** False when the batch limit stopped the run before the backlog was done. */
  complete: boolean;
}

/** Which chains a batch may take: older than a cutoff, in one class or outside some. */
interface Scope {
  cutoff: Date;
  /** Only this class. */
  contentClass?: string;
  /** Not these classes (they keep their own days). */
  exceptClasses?: readonly string[];
}

function scopeCondition(scope: Scope) {
  const older = sql`last_activity_at < ${scope.cutoff.toISOString()}::timestamptz`;
  if (scope.contentClass !== undefined) return sql`${older} and content_class = ${scope.contentClass}`;
  if (scope.exceptClasses?.length) return sql`${older} and content_class not in ${scope.exceptClasses}`;
  return older;
}

/**
 * Deletes one batch: how many chains were due (some may have stayed for passes the
 * summariser has not folded yet) and what went. Null when another instance holds the retention lock.
 */
async function deleteBatch(db: Db, scope: Scope, batchSize: number): Promise<{ due: number; deleted: Deleted } | null> {
  const due = scopeCondition(scope);
  return db.transaction(async (tx) => {
    const { mine } = onlyRow(
      await queryRows<{ mine: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY}) as mine`),
    );
    if (!mine) return null;
    // The summaries' writers (the summariser, the boundary ingest) wait for this batch, and it for them.
    await lockSummaries(tx);
    const candidates = await queryRows<{ chain_id: string }>(
      tx,
      sql`select chain_id from chains where ${due} order by last_activity_at, chain_id limit ${batchSize}`,
    );
    if (candidates.length === 0)
      return { due: 0, deleted: { chains: 0, passes: 0, boundaries: 0, traces: 0, rejections: 0, originals: 0 } };
    // One statement, so that it sees the receipts of one moment: a chain whose stored passes
    // wait for the summariser has had activity its summary does not show yet, and stays; a
    // pass stored while it runs is not seen, so not deleted, and starts the chain anew.
    const inChains = sql`(select chain_id from doomed)`;
    const counted = await queryRows<Record<keyof Deleted, number | string>>(
      tx,
      sql`
        with doomed as (
          delete from chains where chain_id in (
            select json_array_elements_text(${JSON.stringify(candidates.map((c) => c.chain_id))}::json))
            and ${due}
            and chain_id not in (select unnest(q.chain_ids) from summary_queue q)
          returning chain_id
        ),
          p as (delete from passes where chain_id in ${inChains} returning 1),
          -- The chain's source (the input its passes were measured against) goes with it, uncounted.
          s as (delete from chain_sources where chain_id in ${inChains}),
          b as (delete from boundaries where chain_id in ${inChains} returning 1),
          t as (delete from traces where chain_id in ${inChains} returning 1),
          r as (delete from trace_rejections where chain_id in ${inChains} returning 1),
          o as (delete from originals where chain_id in ${inChains} returning 1)
        select (select count(*) from doomed) as chains, (select count(*) from p) as passes,
          (select count(*) from b) as boundaries, (select count(*) from t) as traces,
          (select count(*) from r) as rejections, (select count(*) from o) as originals`,
    );
    const counts = onlyRow(counted);
    return {
      due: candidates.length,
      deleted: {
        chains: Number(counts.chains),
        passes: Number(counts.passes),
        boundaries: Number(counts.boundaries),
        traces: Number(counts.traces),
        rejections: Number(counts.rejections),
        originals: Number(counts.originals),
      },
    };
  });
}

/** The classes whose policy in force keeps their chains for days of their own (the primary, or the replica for pages). */
export async function getClassRetention(options: { db?: Db; read?: boolean } = {}): Promise<Map<string, number>> {
  const db = options.db ?? (options.read ? await getReadDb() : await getDb());
  const rows = await queryRows<{ content_class: string; retention_days: number | null }>(
    db,
    sql`select distinct on (content_class) content_class, retention_days from policies
      order by content_class, version desc`,
  );
  return new Map(rows.flatMap((r) => (r.retention_days === null ? [] : [[r.content_class, Number(r.retention_days)]])));
}

/**
 * Deletes what is older than its days before `now`: each class with days of its own in its
 * policy by those, every other class by `days` (FLOORLINE_RETENTION_DAYS; null keeps them).
 * `batchSize` chains per transaction, at most `maxBatches` transactions per call (the worker
 * calls again later).
 */
export async function deleteExpiredChains(options: {
  now: Date;
  days: number | null;
  batchSize?: number;
  maxBatches?: number;
}): Promise<RetentionRun> {
  const db = await getDb();
  const classDays = await getClassRetention({ db });
  const cutoff = (days: number) => new Date(options.now.getTime() - days * DAY_MS);
  const scopes: Scope[] = [...classDays].map(([contentClass, days]) => ({ cutoff: cutoff(days), contentClass }));
  if (options.days !== null) scopes.push({ cutoff: cutoff(options.days), exceptClasses: [...classDays.keys()] });
  const batchSize = options.batchSize ?? 500;
  let batches = options.maxBatches ?? 20;
  const total: RetentionRun = {
    chains: 0,
    passes: 0,
    boundaries: 0,
    traces: 0,
    rejections: 0,
    originals: 0,
    complete: true,
  };
  for (const scope of scopes) {
    for (;;) {
      if (batches === 0) return { ...total, complete: false };
      batches--;
      const done = await deleteBatch(db, scope, batchSize);
      if (!done) return total;
      for (const kind of KINDS) total[kind] += done.deleted[kind];
      if (done.due < batchSize) break;
      // Let waiting writers in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  if (options.days !== null) total.rejections += await deleteOrphanRejections(db, cutoff(options.days));
  return total;
}

/**
 * Refused traces whose chain never stored anything (or that named none) belong to no chain
 * the batches above would take: they go by their own age, at the server-wide days.
 */
async function deleteOrphanRejections(db: Db, cutoff: Date): Promise<number> {
  const rows = await queryRows<{ n: number | string }>(
    db,
    sql`with gone as (
      delete from trace_rejections r where r.created_at < ${cutoff.toISOString()}::timestamptz
        and (r.chain_id is null or not exists (select 1 from chains c where c.chain_id = r.chain_id))
      returning 1)
    select count(*) as n from gone`,
  );
  return Number(onlyRow(rows).n);
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
