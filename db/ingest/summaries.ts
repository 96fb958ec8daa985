// The summariser: folds stored passes into their chains' summary rows, the overview's
// roll-ups and the webhook outbox, right after the ingest that stored them has answered.
//
// The pass ingest stores the passes and, in the same transaction, one `summary_queue` row
// naming them and their chains. It then asks this process's summariser for a run
// (db/follow-up.ts), which takes every queued row in one transaction of its own: the batches
// queued since the last run cost one update per chain, not one per batch, and the next batch
// is read and stored while the last is folded.
// Reads of this process (getReadDb) wait for the runs asked before them, so a page or an API
// read that follows an ingest shows it; another instance sees it once the run commits,
// milliseconds later. Queued rows outlive a crash: the next run, on any instance, takes them
// (every instance asks for one at start and every few seconds: db/workers/summariser.ts).
import "server-only";
import { sql } from "drizzle-orm";
import type { Db } from "../types";
import { getDb, getHandle, summariesSettled } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import { retryTransient } from "../retry";
import { foldPasses, lockSummaries } from "../queries/chain-summary";
import { notifyChainsChanged } from "../queries/chain-events";
import { refreshMarkerFindingCounts } from "../queries/marker-findings";
import { recordPassEvents } from "../queries/ingest-events";
import { trackRollups } from "./rollups";
import {
  recordChainStarted,
  recordCollapse,
  recordGuarded,
  recordIntegrityFindings,
  type SummaryQueueStats,
} from "@/lib/observability/metrics";

/** Passes one run folds at most (and one queue row more); the rest go in the next run. */
const PASSES_PER_RUN = 20_000;

/**
 * Asks this process's summariser for a run; returns at once, and never fails: when the
 * database cannot be reached (the process is shutting down), the queue waits for the next
 * run on any instance.
 */
export async function requestSummaries(): Promise<void> {
  try {
    const handle = await getHandle();
    handle.summaries.request(() => foldQueued(handle.db));
  } catch {}
}

/**
 * When stored passes of this chain wait in the queue (queued through any instance), runs the
 * summariser here and waits for it, so a read that found no summary can look again.
 */
export async function foldQueuedChain(chainId: string): Promise<void> {
  const waiting = await queryRows(
    await getDb(),
    sql`select id from summary_queue where ${chainId} = any(chain_ids) limit 1`,
    { id: col.int },
  );
  if (waiting.length === 0) return;
  await requestSummaries();
  await summariesSettled();
}

/**
 * Folds what the queue holds, in runs of about PASSES_PER_RUN passes, until a run finds less
 * than that (a queue that others keep filling is left to the runs they ask for). Used by the
 * runs requestSummaries asks for.
 */
export async function foldQueued(db: Db): Promise<void> {
  while ((await retryTransient(() => foldOnce(db))) >= PASSES_PER_RUN) {}
}

/** One run: takes the oldest queue rows, up to about PASSES_PER_RUN passes, and folds them; answers how many passes. */
async function foldOnce(db: Db): Promise<number> {
  const outcome = await db.transaction(async (tx) => {
    await lockSummaries(tx);
    // Oldest first, so a chain's passes are folded in the order they were stored; at least one row.
    // As JSON: both drivers give arrays of any text back from it.
    const taken = await queryRows(
      tx,
      sql`delete from summary_queue where id in (
            select id from (
              select id, sum(cardinality(pass_ids)) over (order by id) - cardinality(pass_ids) as before
              from summary_queue
            ) as q where before < ${PASSES_PER_RUN})
          returning to_json(chain_ids) as chain_ids, to_json(pass_ids) as pass_ids, service_names`,
      { chain_ids: col.textArray, pass_ids: col.intArray, service_names: col.jsonObject.nullable() },
    );
    if (taken.length === 0) return null;
    const chainIds = [...new Set(taken.flatMap((t) => t.chain_ids))];
    const passIds = taken.flatMap((t) => t.pass_ids).sort((a, b) => a - b);
    const folded = await foldPasses(tx, passIds);
    // Marker findings are recorded with their passes, before the chain's summary exists.
    await refreshMarkerFindingCounts(tx, chainIds);
    const named = taken.flatMap((t) =>
      Object.entries(t.service_names ?? {}).map(([chain_id, name]) => ({ chain_id, name })),
    );
    if (named.length > 0) {
      await tx.execute(sql`
        update chains c set service_name = s.name
        from json_to_recordset(${JSON.stringify(named)}::json) as s(chain_id text, name text)
        where c.chain_id = s.chain_id and c.service_name is null`);
    }
    const rollups = trackRollups(tx, folded.before);
    rollups.addPassGroups(folded.passGroups);
    await rollups.commit(folded.after);
    await notifyChainsChanged(tx, chainIds);
    // The outbox events, in this transaction: they exist exactly when the summaries do. They
    // read the folded passes of the chains the fold reports changed, and those whose client
    // disagreed, which the fold answers with.
    const effects = await recordPassEvents(tx, folded.before, folded.after, folded.passes);
    return { passes: passIds.length, effects, canaryFindings: folded.canaryFindings };
  });
  if (!outcome) return 0;
  // Counted once committed.
  for (const contentClass of outcome.effects.started) recordChainStarted(contentClass);
  for (const c of outcome.effects.collapses) recordCollapse(c.content_class, c.verdict);
  for (const g of outcome.effects.guards) recordGuarded(g.content_class, g.strategy);
  recordIntegrityFindings(outcome.effects.integrityKinds);
  recordIntegrityFindings(outcome.canaryFindings);
  return outcome.passes;
}

/** The summary queue gauges on /metrics: passes waiting, and how long the oldest batch has waited. */
export async function getSummaryQueueStats(): Promise<SummaryQueueStats> {
  const row = onlyRow(
    await queryRows(
      await getDb(),
      sql`select coalesce(sum(cardinality(pass_ids)), 0) as passes,
            coalesce(extract(epoch from now() - min(queued_at)), 0)::float8 as oldest_seconds
          from summary_queue`,
      { passes: col.int, oldest_seconds: col.number },
    ),
  );
  return { passes: row.passes, oldest_seconds: Math.max(0, row.oldest_seconds) };
}
