import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { col, onlyRow, queryRows } from "../sql";
import type { Executor } from "../types";
import {
  CHAIN_SNAPSHOT,
  CHAIN_SNAPSHOT_ROW,
  type ChainSnapshot,
  PASS_GROUP_ROW,
  type PassGroup,
  passGroupColumns,
  readChainSnapshots,
} from "../ingest/rollups";
import { INSERTED_PASS_ROW, type InsertedPass } from "./ingest-events";
import { refreshCanaryFindings } from "./canaries";
import { recordIntegrityFindings } from "@/lib/observability/metrics";

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

/**
 * Keeps the passes of `alias` that are folded already: not waiting in the summary queue.
 * Every statement sees the queue as committed when it began, and the summariser's own
 * rows as taken, so a recompute never counts a pass that a later fold will add again.
 */
const folded = (alias: string) => sql.raw(`${alias}.id not in (select unnest(q.pass_ids) from summary_queue q)`);

// The per-chain figures over a set of passes, shared by the fold (over the new passes) and
// the full recompute (over all of a chain's passes) so the two cannot drift apart. A chain's
// collapse and status follow each pass's effective verdict (its own under density_source
// client; the measured one under density_source measured), never the bare `verdict`.
const PASS_AGGREGATES = sql.raw(`
  count(*)::int as pass_count,
  bool_or(effective_verdict = 'FLOOR_BREACH_DETECTED') as has_breach,
  bool_or(effective_verdict = 'COLLAPSE_IMMINENT') as has_imminent,
  (count(*) filter (where client_mismatch))::int as mismatch_count,
  (count(*) filter (where checked_mismatch))::int as checked_mismatch_count,
  (count(*) filter (where measurement_mismatch))::int as measurement_mismatch_count,
  min(semantic_density_score) as min_density,
  min(measured_density) as min_measured_density,
  min(current_size_bytes) as min_size,
  min(created_at) as first_seen,
  max(greatest(created_at, received_at)) as last_seen`);

/**
 * The lowest pass number among passes aliased `alias` whose directive is a HALT that no
 * `restore` or `accept_loss` boundary at the same pass number answers (lib/chains/integrity.ts).
 */
const haltPassAggregate = (alias: string) =>
  sql.raw(`min(${alias}.pass_number) filter (where ${alias}.directive like 'HALT%' and not exists (
    select 1 from boundaries hb where hb.chain_id = ${alias}.chain_id and hb.pass_number = ${alias}.pass_number and hb.strategy <> 'halt'))`);

/**
 * Over the floor passes (effective verdict FLOOR_BREACH_DETECTED or COLLAPSE_IMMINENT) among
 * passes aliased `alias`: the lowest pass number that no boundary at its pass number answers,
 * and whether a boundary answers any (db/schema/chains.ts `chainOutcome` reads both).
 */
const floorAggregates = (alias: string) => {
  const floor = `${alias}.effective_verdict in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')`;
  const answered = `exists (select 1 from boundaries fb where fb.chain_id = ${alias}.chain_id and fb.pass_number = ${alias}.pass_number)`;
  return sql.raw(`min(${alias}.pass_number) filter (where ${floor} and not ${answered}) as unanswered_floor,
  coalesce(bool_or(${floor} and ${answered}), false) as floor_answered`);
};

/** What a fold of passes into their chains changed, as its one statement reports it. */
export interface FoldedPasses {
  /**
   * As it was, the summary of every chain in `after` that existed before the fold. A chain
   * the fold changed may be in neither: then nothing the roll-ups or the outbox read of it
   * moved (see `noted` below), and both would find no difference.
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
}

/** The summary columns both writers of `chains` insert (the fold and the full recompute), in their order. */
const CHAIN_SUMMARY_COLUMNS = sql.raw(`chain_id, content_class, pass_count, boundary_count, last_pass_id,
  last_pass_number, last_verdict, collapse_pass_id, collapse_pass_number, collapse_verdict, collapse_at,
  has_floor_breach, has_collapse_imminent, mismatch_count, checked_mismatch_count, measurement_mismatch_count,
  integrity_count, continued_after_halt_count, restore_not_honoured_count, halt_pass_number,
  unanswered_floor_pass_number, floor_answered, min_density, min_measured_density, min_size_bytes, first_seen_at,
  last_activity_at`);

/** The columns of `passes` the fold below reads. */
const FOLDED_PASS_COLUMNS = sql.raw(`id, chain_id, pass_id, pass_number, input_content_hash, current_content_hash,
  current_size_bytes, semantic_density_score, measured_density, content_class, verdict, effective_verdict, directive,
  manifest_digest, client_mismatch, client_verdict, client_manifest_digest, checked_mismatch, measurement_mismatch, created_at, received_at`);

// The fold below is one statement in steps, each a group of CTEs named for what it holds.

/** The passes to fold (`new`), what they add per chain (`agg`), and each chain as stored (`prior`). */
const newAndPrior = (passIds: readonly number[]) => sql`
  with new as (
    select ${FOLDED_PASS_COLUMNS}, (canary_retention is not null or canaries is not null) as reports_canaries
    from passes where id = any(${`{${passIds.join(",")}}`}::bigint[])
  ),
  agg as (
    select chain_id,
      min(pass_number) as min_number,
      ${haltPassAggregate("n")} as new_halt,
      ${floorAggregates("n")},
      ${PASS_AGGREGATES}
    from new n group by chain_id
  ),
  prior as (
    select a.*, c.chain_id is not null as has_row, c.pass_count as prior_pass_count, c.boundary_count,
      c.last_pass_number, c.collapse_pass_id, c.collapse_pass_number, c.collapse_verdict, c.collapse_at,
      c.has_floor_breach, c.has_collapse_imminent, c.mismatch_count as prior_mismatch_count,
      c.checked_mismatch_count as prior_checked_mismatch_count,
      c.measurement_mismatch_count as prior_measurement_mismatch_count, c.integrity_count, c.min_density as prior_min_density,
      c.min_measured_density as prior_min_measured_density,
      c.min_size_bytes, c.first_seen_at, c.last_activity_at, lp.id as last_id,
      c.continued_after_halt_count as prior_cah_count, c.restore_not_honoured_count as prior_rnh_count,
      least(c.halt_pass_number, a.new_halt) as halt_at, lp.current_content_hash as last_hash,
      c.unanswered_floor_pass_number as prior_unanswered_floor, c.floor_answered as prior_floor_answered
    from agg a
    left join chains c on c.chain_id = a.chain_id
    -- One index probe per chain (a lateral with a limit is never flattened into a join
    -- that could read the whole passes table).
    left join lateral (
      select p.id, p.current_content_hash from passes p
      where p.chain_id = c.chain_id and p.pass_id = c.last_pass_id limit 1
    ) lp on true
  ),`;

/** The chains the fold is exact for: new passes all after the stored last one, no restore in the way. */
const APPENDABLE = sql`
  appendable as (
    select * from prior
    where (has_row and prior_pass_count > 0 and last_id is not null and min_number >= last_pass_number
        -- A restore boundary at or after the stored last pass judges a new pass against the restored one.
        and not exists (select 1 from boundaries rb where rb.chain_id = prior.chain_id and rb.strategy = 'restore'
          and rb.pass_number >= prior.last_pass_number))
      or (not has_row and not exists (select 1 from boundaries b where b.chain_id = prior.chain_id))
  ),`;

/** The new passes' integrity findings (`integ`). */
const INTEGRITY_OF_NEW = sql`
  -- Integrity findings of the new passes only: each is judged against the pass before it,
  -- which for the first new pass is the chain's stored last pass.
  seq as (
    select chain_id, is_new, pass_number, input_content_hash, halt_at,
      lag(pass_number) over w as prev_num,
      lag(current_content_hash) over w as prev_hash
    from (
      select n.chain_id, n.id, n.pass_number, n.input_content_hash, n.current_content_hash, true as is_new, ap.halt_at
      from new n join appendable ap on ap.chain_id = n.chain_id
      union all
      select chain_id, last_id, last_pass_number, null, last_hash, false, halt_at from appendable where has_row
    ) as s
    window w as (partition by chain_id order by pass_number, id)
  ),
  integ as (
    select chain_id, (
      count(*) filter (where (prev_num is null and pass_number > 1) or pass_number = prev_num or pass_number > prev_num + 1)
      + count(*) filter (where prev_num = pass_number - 1 and input_content_hash is not null and input_content_hash <> prev_hash)
    )::int as n,
      -- One finding per halt, on the first pass above it: only if no stored pass is above it already.
      (count(*) filter (where pass_number > halt_at and coalesce(prev_num <= halt_at, true)))::int as cah
    from seq where is_new group by chain_id
  ),`;

/** Each appendable chain's summary with its new passes folded in (`folded`). */
const FOLDED = sql`
  last as (
    select distinct on (chain_id) chain_id, pass_id, pass_number, effective_verdict as verdict, content_class
    from new order by chain_id, pass_number desc, id desc
  ),
  col as (
    select distinct on (chain_id) chain_id, pass_id, pass_number, effective_verdict as verdict, created_at
    from new where effective_verdict in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')
    order by chain_id, pass_number, id
  ),
  folded as (
    select
      ap.chain_id,
      ap.has_row,
      last.content_class,
      coalesce(ap.prior_pass_count, 0) + ap.pass_count as pass_count,
      coalesce(ap.boundary_count, 0) as boundary_count,
      last.pass_id as last_pass_id,
      last.pass_number as last_pass_number,
      last.verdict as last_verdict,
      case when ap.collapse_pass_id is null then col.pass_id else ap.collapse_pass_id end as collapse_pass_id,
      case when ap.collapse_pass_id is null then col.pass_number else ap.collapse_pass_number end as collapse_pass_number,
      case when ap.collapse_pass_id is null then col.verdict else ap.collapse_verdict end as collapse_verdict,
      case when ap.collapse_pass_id is null then col.created_at else ap.collapse_at end as collapse_at,
      coalesce(ap.has_floor_breach, false) or ap.has_breach as has_floor_breach,
      coalesce(ap.has_collapse_imminent, false) or ap.has_imminent as has_collapse_imminent,
      coalesce(ap.prior_mismatch_count, 0) + ap.mismatch_count as mismatch_count,
      coalesce(ap.prior_checked_mismatch_count, 0) + ap.checked_mismatch_count as checked_mismatch_count,
      coalesce(ap.prior_measurement_mismatch_count, 0) + ap.measurement_mismatch_count as measurement_mismatch_count,
      coalesce(ap.integrity_count, 0) + coalesce(integ.n, 0) + coalesce(integ.cah, 0) as integrity_count,
      coalesce(ap.prior_cah_count, 0) + coalesce(integ.cah, 0) as continued_after_halt_count,
      coalesce(ap.prior_rnh_count, 0) as restore_not_honoured_count,
      ap.halt_at as halt_pass_number,
      least(ap.prior_unanswered_floor, ap.unanswered_floor) as unanswered_floor_pass_number,
      coalesce(ap.prior_floor_answered, false) or ap.floor_answered as floor_answered,
      least(ap.prior_min_density, ap.min_density) as min_density,
      least(ap.prior_min_measured_density, ap.min_measured_density) as min_measured_density,
      least(ap.min_size_bytes, ap.min_size) as min_size_bytes,
      least(ap.first_seen_at, ap.first_seen) as first_seen_at,
      greatest(ap.last_activity_at, ap.last_seen) as last_activity_at
    from appendable ap
    join last on last.chain_id = ap.chain_id
    left join col on col.chain_id = ap.chain_id
    left join integ on integ.chain_id = ap.chain_id
  ),`;

/** The folded summaries written (`updated`, `created`). */
const WRITE_FOLDED = sql`
  -- A plain update and a plain insert: cheaper than an upsert, and safe because the
  -- chains are locked and their rows were looked up above.
  updated as (
    update chains set
      content_class = f.content_class,
      pass_count = f.pass_count,
      last_pass_id = f.last_pass_id,
      last_pass_number = f.last_pass_number,
      last_verdict = f.last_verdict,
      collapse_pass_id = f.collapse_pass_id,
      collapse_pass_number = f.collapse_pass_number,
      collapse_verdict = f.collapse_verdict,
      collapse_at = f.collapse_at,
      has_floor_breach = f.has_floor_breach,
      has_collapse_imminent = f.has_collapse_imminent,
      mismatch_count = f.mismatch_count,
      checked_mismatch_count = f.checked_mismatch_count,
      measurement_mismatch_count = f.measurement_mismatch_count,
      integrity_count = f.integrity_count,
      continued_after_halt_count = f.continued_after_halt_count,
      restore_not_honoured_count = f.restore_not_honoured_count,
      halt_pass_number = f.halt_pass_number,
      unanswered_floor_pass_number = f.unanswered_floor_pass_number,
      floor_answered = f.floor_answered,
      min_density = f.min_density,
      min_measured_density = f.min_measured_density,
      min_size_bytes = f.min_size_bytes,
      first_seen_at = f.first_seen_at,
      last_activity_at = f.last_activity_at
    from folded f
    where f.has_row and chains.chain_id = f.chain_id
    returning ${CHAIN_SNAPSHOT}
  ),
  created as (
    insert into chains (${CHAIN_SUMMARY_COLUMNS})
    select chain_id, content_class, pass_count, boundary_count, last_pass_id, last_pass_number, last_verdict,
      collapse_pass_id, collapse_pass_number, collapse_verdict, collapse_at, has_floor_breach, has_collapse_imminent,
      mismatch_count, checked_mismatch_count, measurement_mismatch_count, integrity_count, continued_after_halt_count,
      restore_not_honoured_count, halt_pass_number, unanswered_floor_pass_number, floor_answered,
      min_density, min_measured_density, min_size_bytes, first_seen_at, last_activity_at
    from folded where not has_row
    returning ${CHAIN_SNAPSHOT}
  ),`;

/** What the fold changed, in one row: the chains before and after, the stale chains to recompute, the roll-ups' groups and the outbox's passes. */
const REPORT = sql`
  -- The changed chains as they were: every part of one statement reads the rows as they
  -- were before it, whatever its updates do.
  before as (
    select ${CHAIN_SNAPSHOT} from chains where chains.chain_id in (select chain_id from agg)
  ),
  written as (select * from updated union all select * from created),
  stale as (select chain_id from agg where chain_id not in (select chain_id from appendable)),
  -- Chains whose canary_lost findings are judged again after this statement (refreshCanaryFindings).
  canary as (select distinct chain_id from new where reports_canaries),
  -- The folded chains the roll-ups or the outbox can tell apart from what they were: new
  -- ones, and those whose time buckets, statuses, collapse point or integrity findings
  -- moved. For any other chain both would compute nothing (db/ingest/rollups.ts,
  -- db/queries/ingest-events.ts), so its snapshots are not sent: with 2,500 chains a batch
  -- they were most of the answer. A late pass, which the outbox judges again even when the
  -- count stays, never gets here: its chain is stale, or shares its stored last pass's
  -- number, a finding of its own. A chain with canaries is kept: its canary findings, judged
  -- after this statement, can move its integrity count.
  noted as (
    select w.chain_id from written w
    left join before b on b.chain_id = w.chain_id
    where b.chain_id is null
      or w.chain_id in (select chain_id from canary)
      or (w.content_class, w.active_hour, w.first_hour, w.collapse_hour, w.collapse_pass_id, w.integrity_count, w.statuses)
        is distinct from (b.content_class, b.active_hour, b.first_hour, b.collapse_hour, b.collapse_pass_id, b.integrity_count, b.statuses)
  )
  -- One row of JSON: cheaper for both drivers to read than a row per pass.
  select
    (select json_agg(w) from written as w where w.chain_id in (select chain_id from noted)) as chains,
    (select json_agg(b) from before as b
      where b.chain_id in (select chain_id from noted) or b.chain_id in (select chain_id from stale)) as before,
    (select array_agg(chain_id) from stale) as stale,
    (select array_agg(chain_id) from canary) as canary,
    (select json_agg(g) from (select ${passGroupColumns("p")} from new p group by 1, 2, 3) as g) as pass_groups,
    -- What the outbox reads of the new passes, from the rows read above: reading them back
    -- by id after the fold took from a tenth to nearly half of a run (bench:ingest).
    (select json_agg(p order by p.id) from (
      select id, chain_id, pass_id, pass_number, input_content_hash, current_content_hash, content_class, verdict,
        directive, manifest_digest, client_mismatch, client_verdict, client_manifest_digest
      from new
      where client_mismatch or chain_id in (select chain_id from noted) or chain_id in (select chain_id from stale)
    ) as p) as passes`;

/**
 * Folds the given stored passes (`passes.id`; stored, none folded before) into their chains'
 * summary rows in one statement, without re-reading the
 * chains' history (recomputing made every batch cost as much as its chains were long).
 * Folding is exact where the new passes all sort after the chain's stored ones (pass
 * number, then id), which is how agents report: the new passes' integrity findings then
 * depend only on each other and on the stored last pass. Any other chain (a late or
 * out-of-order pass, a chain with boundaries but no passes yet) is recomputed in full.
 * Callers hold lockSummaries, so no other writer can change a chain in between.
 */
export async function foldPasses(tx: Executor, passIds: readonly number[]): Promise<FoldedPasses> {
  const outcome = onlyRow(
    await queryRows(
      tx,
      sql`
      ${newAndPrior(passIds)}
      ${APPENDABLE}
      ${INTEGRITY_OF_NEW}
      ${FOLDED}
      ${WRITE_FOLDED}
      ${REPORT}`,
      {
        chains: col.rowsOf(CHAIN_SNAPSHOT_ROW),
        before: col.rowsOf(CHAIN_SNAPSHOT_ROW),
        stale: col.textArray.nullable(),
        canary: col.textArray.nullable(),
        pass_groups: col.rowsOf(PASS_GROUP_ROW),
        passes: col.rowsOf({ id: col.int, ...INSERTED_PASS_ROW }),
      },
    ),
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
  const canary = await refreshCanaryFindings(tx, outcome.canary ?? []);
  for (const [id, snapshot] of await readChainSnapshots(tx, canary.changed)) after.set(id, snapshot);
  // Counted before the summariser commits (it counts only what recordPassEvents took): a run
  // retried after a transient failure counts its canary findings again.
  recordIntegrityFindings(canary.kinds);
  return {
    before,
    after,
    passGroups: outcome.pass_groups,
    passes: outcome.passes,
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
    insert into chains (${CHAIN_SUMMARY_COLUMNS})
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
      content_class = excluded.content_class,
      pass_count = excluded.pass_count,
      boundary_count = excluded.boundary_count,
      last_pass_id = excluded.last_pass_id,
      last_pass_number = excluded.last_pass_number,
      last_verdict = excluded.last_verdict,
      collapse_pass_id = excluded.collapse_pass_id,
      collapse_pass_number = excluded.collapse_pass_number,
      collapse_verdict = excluded.collapse_verdict,
      collapse_at = excluded.collapse_at,
      has_floor_breach = excluded.has_floor_breach,
      has_collapse_imminent = excluded.has_collapse_imminent,
      mismatch_count = excluded.mismatch_count,
      checked_mismatch_count = excluded.checked_mismatch_count,
      measurement_mismatch_count = excluded.measurement_mismatch_count,
      integrity_count = excluded.integrity_count,
      continued_after_halt_count = excluded.continued_after_halt_count,
      restore_not_honoured_count = excluded.restore_not_honoured_count,
      halt_pass_number = excluded.halt_pass_number,
      unanswered_floor_pass_number = excluded.unanswered_floor_pass_number,
      floor_answered = excluded.floor_answered,
      min_density = excluded.min_density,
      min_measured_density = excluded.min_measured_density,
      min_size_bytes = excluded.min_size_bytes,
      first_seen_at = excluded.first_seen_at,
      last_activity_at = excluded.last_activity_at`);
}
