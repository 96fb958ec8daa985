import "server-only";
import { sql } from "drizzle-orm";
import { col, onlyRow, queryRows } from "../sql";
import type { Executor } from "../types";
import {
  CHAIN_SNAPSHOT_ROW,
  type ChainSnapshot,
  PASS_GROUP_ROW,
  type PassGroup,
  readChainSnapshots,
} from "../ingest/rollups";
import { INSERTED_PASS_ROW, type InsertedPass } from "./ingest-events";
import { judgeCanaryFindings, recordCanaryFindings } from "./canaries";
import { foldStatement } from "./chain-fold-steps";
import {
  chainSummaryColumns,
  floorAggregates,
  folded,
  haltPassAggregate,
  PASS_AGGREGATES,
  setSummaryColumns,
} from "./chain-summary-sql";

// Any fixed number: the lock every writer of `chains` holds (lockSummaries).
export const SUMMARY_WRITER_LOCK_KEY = 0x53756d6d;

/**
 * Takes the one lock of every writer of the chains' summary rows: the summariser
 * (db/ingest/summaries.ts), the boundary ingest and retention, across every instance on the
 * database. Held until the transaction ends, so each sees the summaries as the one before it
 * left them. The pass ingest never takes it: it only stores passes and queues them.
 */
export async function lockSummaries(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${SUMMARY_WRITER_LOCK_KEY})`);
}

/** What a fold of passes into their chains changed, as its one statement reports it. */
export interface FoldedPasses {
  /**
   * As it was, the summary of every chain in `after` that existed before the fold. A chain
   * the fold changed may be in neither: then nothing the roll-ups or the outbox read of it
   * moved (`noted` in chain-fold-steps.ts), and both would find no difference.
   */
  before: Map<string, ChainSnapshot>;
  /** The summary, as it is now, of every chain the fold changed in a way the roll-ups or the outbox see. */
  after: Map<string, ChainSnapshot>;
  /** The folded passes counted per hour, class and verdict, for the roll-ups. */
  passGroups: PassGroup[];
  /**
   * The folded passes the outbox reads, in the order they were stored: those of the chains in
   * `after` and those whose client disagreed (db/queries/ingest-events.ts reads no other).
   */
  passes: InsertedPass[];
  /** One `canary_lost` per canary finding this fold recorded, for the metric once committed. */
  canaryFindings: "canary_lost"[];
}

/**
 * Folds the given stored passes (`passes.id`; stored, none folded before) into their chains'
 * summary rows in one statement (its steps: chain-fold-steps.ts), without re-reading the
 * chains' history (recomputing made every batch cost as much as its chains were long).
 * Folding is exact where the new passes all sort after the chain's stored ones (pass
 * number, then id), which is how agents report: the new passes' integrity findings then
 * depend only on each other and on the stored last pass. Any other chain (a late or
 * out-of-order pass, a chain with boundaries but no passes yet) is recomputed in full.
 * Callers hold lockSummaries, so no other writer can change a chain in between.
 */
export async function foldPasses(tx: Executor, passIds: readonly number[]): Promise<FoldedPasses> {
  const outcome = onlyRow(
    await queryRows(tx, foldStatement(passIds), {
      chains: col.rowsOf(CHAIN_SNAPSHOT_ROW),
      before: col.rowsOf(CHAIN_SNAPSHOT_ROW),
      stale: col.textArray.nullable(),
      canary: col.rowsOf({ chain_id: col.text, from_number: col.int }),
      pass_groups: col.rowsOf(PASS_GROUP_ROW),
      passes: col.rowsOf({ id: col.int, ...INSERTED_PASS_ROW }),
    }),
  );
  const snapshots = (rows: ChainSnapshot[]) => new Map(rows.map((row) => [row.chain_id, row]));
  const before = snapshots(outcome.before);
  const after = snapshots(outcome.chains);
  const stale = outcome.stale ?? [];
  if (stale.length > 0) {
    await refreshChainSummaries(tx, stale);
    for (const [id, snapshot] of await readChainSnapshots(tx, stale)) after.set(id, snapshot);
  }
  // Canary findings are judged over the chain's passes in code (lib/canaries/survival.ts), once
  // the summaries above exist; only batches with passes that plant or report on canaries pay.
  const judged = await judgeCanaryFindings(tx, outcome.canary);
  const moved = judged.counts.map((c) => c.chain_id);
  // A chain the fold left out of `after` changed nothing the roll-ups see: as the fold left it
  // is how they last counted it.
  for (const [id, snapshot] of await readChainSnapshots(
    tx,
    moved.filter((id) => !after.has(id)),
  ))
    before.set(id, snapshot);
  const kinds = await recordCanaryFindings(tx, judged);
  for (const [id, snapshot] of await readChainSnapshots(tx, moved)) after.set(id, snapshot);
  return {
    before,
    after,
    passGroups: outcome.pass_groups,
    passes: outcome.passes,
    canaryFindings: kinds,
  };
}

/**
 * Recomputes the `chains` summary rows of the given chains from their passes and
 * boundaries. The integrity count mirrors lib/chains/integrity.ts, plus the canary findings
 * the row holds (refreshCanaryFindings judges those).
 */
export async function refreshChainSummaries(tx: Executor, chainIds: readonly string[]): Promise<void> {
  if (chainIds.length === 0) return;
  await tx.execute(sql`
    insert into chains (${chainSummaryColumns()})
    select
      ids.chain_id,
      coalesce(last.content_class, 'default'),
      coalesce(agg.pass_count, 0),
      coalesce(b.boundary_count, 0),
      last.pass_id, last.pass_number, last.verdict,
      col.pass_id, col.pass_number, col.verdict, col.created_at,
      coalesce(agg.has_breach, false), coalesce(agg.has_imminent, false),
      coalesce(agg.mismatch_count, 0), coalesce(agg.checked_mismatch_count, 0), coalesce(agg.measurement_mismatch_count, 0),
      coalesce(integ.n, 0) + coalesce(integ.rnh, 0) + coalesce(integ.cah, 0) + coalesce(cf.n, 0),
      coalesce(integ.cah, 0), coalesce(integ.rnh, 0), h.halt_at,
      agg.unanswered_floor, coalesce(agg.floor_answered, false),
      agg.min_density, agg.min_measured_density, agg.min_size,
      coalesce(least(agg.first_seen, b.first_seen), now()),
      coalesce(greatest(agg.last_seen, b.last_seen), now())
    from (select distinct c as chain_id from json_array_elements_text(${JSON.stringify([...new Set(chainIds)])}::json) as c) as ids
    left join lateral (
      select ${PASS_AGGREGATES}, ${floorAggregates("p")}
      from passes p where p.chain_id = ids.chain_id and ${folded("p")}
    ) as agg on true
    left join lateral (
      select count(*)::int as boundary_count, min(created_at) as first_seen, max(created_at) as last_seen
      from boundaries bd where bd.chain_id = ids.chain_id
    ) as b on true
    left join lateral (
      select pass_id, pass_number, effective_verdict as verdict, content_class from passes p
      where p.chain_id = ids.chain_id and ${folded("p")} order by pass_number desc, id desc limit 1
    ) as last on true
    left join lateral (
      select pass_id, pass_number, effective_verdict as verdict, created_at from passes p
      where p.chain_id = ids.chain_id and ${folded("p")} and effective_verdict in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')
      order by pass_number, id limit 1
    ) as col on true
    left join lateral (
      select least(
        (select min(hb.pass_number) from boundaries hb where hb.chain_id = ids.chain_id and hb.strategy = 'halt'),
        (select ${haltPassAggregate("hp")} from passes hp where hp.chain_id = ids.chain_id and hp.directive like 'HALT%' and ${folded("hp")})
      ) as halt_at
    ) as h on true
    left join lateral (
      select (
        count(*) filter (where (seq.prev_num is null and seq.pass_number > 1) or seq.pass_number = seq.prev_num
          or seq.pass_number > seq.prev_num + 1)
        + count(*) filter (where seq.prev_num = seq.pass_number - 1 and seq.input_content_hash is not null
          and k.pass_id is null and seq.input_content_hash <> seq.prev_hash)
      )::int as n,
        (count(*) filter (where seq.prev_num = seq.pass_number - 1 and seq.input_content_hash is not null
          and k.pass_id is not null and seq.input_content_hash <> k.current_content_hash))::int as rnh,
        (count(*) filter (where seq.pass_number > h.halt_at and coalesce(seq.prev_num <= h.halt_at, true)))::int as cah
      from (
        select pass_number, input_content_hash,
          lag(pass_number) over w as prev_num,
          lag(current_content_hash) over w as prev_hash
        from passes p where p.chain_id = ids.chain_id and ${folded("p")}
        window w as (order by pass_number, id)
      ) as seq
      -- Right after a restore boundary the pass is judged against the restored pass, when it was received.
      left join boundaries rb on rb.chain_id = ids.chain_id and rb.strategy = 'restore' and rb.pass_number = seq.prev_num
      left join passes k on k.chain_id = ids.chain_id and k.pass_id = rb.restore_pass_id
    ) as integ on true
    -- The chain's canary_lost findings as last judged (refreshCanaryFindings): part of integrity_count.
    left join lateral (select canary_finding_count as n from chains cc where cc.chain_id = ids.chain_id) as cf on true
    on conflict (chain_id) do update set
      ${setSummaryColumns("excluded", ["chain_id"])}`);
}
