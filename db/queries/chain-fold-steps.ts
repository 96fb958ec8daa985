// The fold of new passes into their chains' summary rows (chain-summary.ts foldPasses), one
// statement for speed (one round trip per summariser run; bench:ingest), written as the steps a
// reader can name. Each step is one or a few CTEs, named for what they hold; `foldStatement`
// runs them in order, and each reads only the steps above it.
//
//   new            the passes to fold
//   agg            what they add up to per chain
//   prior          each chain as stored, beside that
//   appendable     the chains the fold is exact for (the others are recomputed: `stale`)
//   seq, integ     the integrity findings of the new passes
//   last, col,     each appendable chain's summary with its new passes folded in
//   folded
//   updated,       the folded summaries written
//   created
//   before, ...    what changed, for the roll-ups and the outbox, and the one row answered
import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { CHAIN_SNAPSHOT, passGroupColumns } from "../ingest/rollups";
import {
  chainSummaryColumns,
  FOLDED_PASS_COLUMNS,
  floorAggregates,
  haltPassAggregate,
  PASS_AGGREGATES,
  setSummaryColumns,
} from "./chain-summary-sql";

/** The passes to fold (`new`), by id, and whether each plants or reports on canaries. */
const passesToFold = (passIds: readonly number[]) => sql`
  new as (
    select ${FOLDED_PASS_COLUMNS}, (canary_retention is not null or canaries is not null) as reports_canaries
    from passes where id = any(${`{${passIds.join(",")}}`}::bigint[])
  )`;

/** What the new passes add up to per chain (`agg`): counts, extremes, their halt and floor passes. */
const NEW_PER_CHAIN = sql`
  agg as (
    select chain_id,
      min(pass_number) as min_number,
      ${haltPassAggregate("n")} as new_halt,
      ${floorAggregates("n")},
      ${PASS_AGGREGATES}
    from new n group by chain_id
  )`;

/** Each chain of the new passes as stored (`prior`, null columns for a new chain), with its stored last pass. */
const STORED_SUMMARIES = sql`
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
  )`;

/** The chains the fold is exact for (`appendable`): new passes all after the stored last one, no restore in the way. */
const APPENDABLE_CHAINS = sql`
  appendable as (
    select * from prior
    where (has_row and prior_pass_count > 0 and last_id is not null and min_number >= last_pass_number
        -- A restore boundary at or after the stored last pass judges a new pass against the restored one.
        and not exists (select 1 from boundaries rb where rb.chain_id = prior.chain_id and rb.strategy = 'restore'
          and rb.pass_number >= prior.last_pass_number))
      or (not has_row and not exists (select 1 from boundaries b where b.chain_id = prior.chain_id))
  )`;

/** The new passes' integrity findings per chain (`integ`), each judged against the pass before it (`seq`). */
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
  )`;

/** Each appendable chain's summary with its new passes folded in (`folded`), from its last and first floor pass (`last`, `col`). */
const FOLDED_SUMMARIES = sql`
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
  )`;

/** The folded summaries written (`updated`, `created`), each answering its chain's snapshot. */
const WRITE_FOLDED = sql`
  -- A plain update and a plain insert: cheaper than an upsert, and safe because the
  -- chains are locked and their rows were looked up above.
  updated as (
    update chains set
      ${setSummaryColumns("f", ["chain_id", "boundary_count"])}
    from folded f
    where f.has_row and chains.chain_id = f.chain_id
    returning ${CHAIN_SNAPSHOT}
  ),
  created as (
    insert into chains (${chainSummaryColumns()})
    select ${chainSummaryColumns()}
    from folded where not has_row
    returning ${CHAIN_SNAPSHOT}
  )`;

/**
 * What the fold changed (`before`, `written`, `stale`, `canary`, `noted`): the chains before and
 * after, the chains to recompute, the chains whose canaries are judged next.
 */
const WHAT_CHANGED = sql`
  -- The changed chains as they were: every part of one statement reads the rows as they
  -- were before it, whatever its updates do.
  before as (
    select ${CHAIN_SNAPSHOT} from chains where chains.chain_id in (select chain_id from agg)
  ),
  written as (select * from updated union all select * from created),
  stale as (select chain_id from agg where chain_id not in (select chain_id from appendable)),
  -- Chains whose canary_lost findings are judged again after this statement (judgeCanaryFindings),
  -- with the lowest pass number that can hold a new one.
  canary as (select chain_id, min(pass_number) as from_number from new where reports_canaries group by chain_id),
  -- The folded chains the roll-ups or the outbox can tell apart from what they were: new
  -- ones, and those whose time buckets, statuses, collapse point or integrity findings
  -- moved. For any other chain both would compute nothing (db/ingest/rollups.ts,
  -- db/queries/ingest-events.ts), so its snapshots are not sent: with 2,500 chains a batch
  -- they were most of the answer. A late pass, which the outbox judges again even when the
  -- count stays, never gets here: its chain is stale, or shares its stored last pass's
  -- number, a finding of its own.
  noted as (
    select w.chain_id from written w
    left join before b on b.chain_id = w.chain_id
    where b.chain_id is null
      or (w.content_class, w.active_hour, w.first_hour, w.collapse_hour, w.collapse_pass_id, w.integrity_count, w.statuses)
        is distinct from (b.content_class, b.active_hour, b.first_hour, b.collapse_hour, b.collapse_pass_id, b.integrity_count, b.statuses)
  )`;

/** The statement's one row: the changed chains before and after, the stale and canary chains, the roll-ups' groups and the outbox's passes. */
const ANSWER = sql`
  -- One row of JSON: cheaper for both drivers to read than a row per pass.
  select
    (select json_agg(w) from written as w where w.chain_id in (select chain_id from noted)) as chains,
    (select json_agg(b) from before as b
      where b.chain_id in (select chain_id from noted) or b.chain_id in (select chain_id from stale)) as before,
    (select array_agg(chain_id) from stale) as stale,
    (select json_agg(c) from canary as c) as canary,
    (select json_agg(g) from (select ${passGroupColumns("p")} from new p group by 1, 2, 3) as g) as pass_groups,
    -- What the outbox reads of the new passes, from the rows read above: reading them back
    -- by id after the fold took from a tenth to nearly half of a run (bench:ingest).
    (select json_agg(p order by p.id) from (
      select id, chain_id, pass_id, pass_number, input_content_hash, current_content_hash, content_class, verdict,
        directive, manifest_digest, client_mismatch, client_verdict, client_manifest_digest
      from new
      where client_mismatch or chain_id in (select chain_id from noted) or chain_id in (select chain_id from stale)
    ) as p) as passes`;

/** The whole fold of the given stored passes (`passes.id`), as one statement. */
export function foldStatement(passIds: readonly number[]): SQL {
  const steps = [
    passesToFold(passIds),
    NEW_PER_CHAIN,
    STORED_SUMMARIES,
    APPENDABLE_CHAINS,
    INTEGRITY_OF_NEW,
    FOLDED_SUMMARIES,
    WRITE_FOLDED,
    WHAT_CHANGED,
  ];
  return sql`with ${sql.join(steps, sql`,`)}
${ANSWER}`;
}
