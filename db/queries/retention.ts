// Retention: chains whose last activity is older than the kept days go, with their passes,
// sources, boundaries, traces, trace rejections and cached originals, in small batches of short transactions so that
// the other writers of summaries wait little (the pass ingest never waits: it takes no lock
// retention holds). A chain with passes not yet folded into its summary stays, and is looked
// at again next round. A class's policy may keep its chains for days of its own. The overview's roll-ups are left alone: the history keeps its counts.
import "server-only";
import { desc, min, sql } from "drizzle-orm";
import { getDb, getReadDb } from "../index";
import { chains, policies } from "../schema";
import { col, onlyRow, queryRows } from "../sql";
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
      await queryRows(tx, sql`select pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY}) as mine`, { mine: col.bool }),
    );
    if (!mine) return null;
    // The summaries' writers (the summariser, the boundary ingest) wait for this batch, and it for them.
    await lockSummaries(tx);
    const candidates = await tx
      .select({ chain_id: chains.chainId })
      .from(chains)
      .where(due)
      .orderBy(chains.lastActivityAt, chains.chainId)
      .limit(batchSize);
    if (candidates.length === 0)
      return { due: 0, deleted: { chains: 0, passes: 0, boundaries: 0, traces: 0, rejections: 0, originals: 0 } };
    // One statement, so that it sees the receipts of one moment: a chain whose stored passes
    // wait for the summariser has had activity its summary does not show yet, and stays; a
    // pass stored while it runs is not seen, so not deleted, and starts the chain anew.
    const inChains = sql`(select chain_id from doomed)`;
    const counted = await queryRows(
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
          -- A pass's markers have no foreign key to it (writing them at ingest stays cheap):
          -- they go here, uncounted, by pass_markers_pass_original_key.
          m as (delete from pass_markers where chain_id in ${inChains}),
          -- The chain's source (the input its passes were measured against) goes with it, uncounted,
          -- and the source's facts ledger (on delete cascade) with the ledger's facts, which have
          -- no foreign key to it (writing them at ingest stays cheap).
          s as (delete from chain_sources where chain_id in ${inChains}),
          lf as (delete from chain_facts where chain_id in ${inChains}),
          b as (delete from boundaries where chain_id in ${inChains} returning 1),
          -- A trace's lineage findings go with it, uncounted (the statements share one snapshot).
          f as (delete from trace_findings where trace_id in (select trace_id from traces where chain_id in ${inChains})),
          t as (delete from traces where chain_id in ${inChains} returning 1),
          r as (delete from trace_rejections where chain_id in ${inChains} returning 1),
          o as (delete from originals where chain_id in ${inChains} returning 1)
        select (select count(*) from doomed) as chains, (select count(*) from p) as passes,
          (select count(*) from b) as boundaries, (select count(*) from t) as traces,
          (select count(*) from r) as rejections, (select count(*) from o) as originals`,
      {
        chains: col.int,
        passes: col.int,
        boundaries: col.int,
        traces: col.int,
        rejections: col.int,
        originals: col.int,
      } satisfies Record<keyof Deleted, unknown>,
    );
    return { due: candidates.length, deleted: onlyRow(counted) };
  });
}

/** The classes whose policy in force keeps their chains for days of their own (the primary, or the replica for pages). */
export async function getClassRetention(options: { db?: Db; read?: boolean } = {}): Promise<Map<string, number>> {
  const db = options.db ?? (options.read ? await getReadDb() : await getDb());
  const rows = await db
    .selectDistinctOn([policies.contentClass], {
      content_class: policies.contentClass,
      retention_days: policies.retentionDays,
    })
    .from(policies)
    .orderBy(policies.contentClass, desc(policies.version));
  return new Map(rows.flatMap((r) => (r.retention_days === null ? [] : [[r.content_class, r.retention_days]])));
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
  const rows = await queryRows(
    db,
    sql`with gone as (
      delete from trace_rejections r where r.created_at < ${cutoff.toISOString()}::timestamptz
        and (r.chain_id is null or not exists (select 1 from chains c where c.chain_id = r.chain_id))
      returning 1)
    select count(*) as n from gone`,
    { n: col.int },
  );
  return onlyRow(rows).n;
}

/** What the overview says about retention: the oldest chain still kept. */
export async function getOldestActivity(): Promise<Date | null> {
  const db = await getReadDb();
  const [row] = await db.select({ oldest: min(chains.lastActivityAt) }).from(chains);
  return row?.oldest ?? null;
}
