import "server-only";
import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "../index";

/**
 * Takes the per-chain write locks for a set of chains, in a fixed order so that two
 * batches touching the same chains cannot deadlock. Held until the transaction ends, so
 * the summary recomputed afterwards sees every committed pass.
 */
export async function lockChains(tx: Executor, chainIds: readonly string[]): Promise<void> {
  if (chainIds.length === 0) return;
  await tx.execute(sql`
    select pg_advisory_xact_lock(k) from (
      select distinct hashtext('chain:' || c) as k from json_array_elements_text(${JSON.stringify([...new Set(chainIds)])}::json) as c
      order by k
    ) as keys`);
}

/**
 * Folds freshly inserted passes (by row id) into their chains' summary rows without
 * re-reading the chains' history, which made every batch cost as much as the chains were
 * long. That is exact only where the new passes all sort after the chain's stored ones
 * (order: pass number, then id), which is how agents report; any other chain (a late or
 * out-of-order pass, a chain with boundaries but no passes yet) is recomputed in full.
 * Callers hold the chains' locks, so no other writer can move a chain in between.
 */
export async function updateChainSummariesWithPasses(tx: Executor, passIds: readonly number[]): Promise<void> {
  if (passIds.length === 0) return;
  const stale = await queryRows<{ chain_id: string }>(
    tx,
    sql`
      with new as (
        select p.* from passes p
        where p.id in (select value::bigint from json_array_elements_text(${JSON.stringify(passIds)}::json))
      ),
      agg as (
        select chain_id,
          count(*)::int as pass_count,
          min(pass_number) as min_number,
          bool_or(verdict = 'FLOOR_BREACH_DETECTED') as has_breach,
          bool_or(verdict = 'COLLAPSE_IMMINENT') as has_imminent,
          (count(*) filter (where client_mismatch))::int as mismatch_count,
          min(semantic_density_score) as min_density,
          min(current_size_bytes) as min_size,
          min(created_at) as first_seen,
          max(greatest(created_at, received_at)) as last_seen
        from new group by chain_id
      ),
      prior as (
        select a.*, c.chain_id is not null as has_row, c.pass_count as prior_pass_count, c.boundary_count,
          c.last_pass_number, c.collapse_pass_id, c.collapse_pass_number, c.collapse_verdict, c.has_floor_breach,
          c.has_collapse_imminent, c.mismatch_count as prior_mismatch_count, c.integrity_count, c.min_density as prior_min_density,
          c.min_size_bytes, c.first_seen_at, c.last_activity_at, lp.id as last_id, lp.current_content_hash as last_hash
        from agg a
        left join chains c on c.chain_id = a.chain_id
        left join passes lp on lp.chain_id = c.chain_id and lp.pass_id = c.last_pass_id
      ),
      appendable as (
        select * from prior
        where (has_row and prior_pass_count > 0 and last_id is not null and min_number >= last_pass_number)
          or (not has_row and not exists (select 1 from boundaries b where b.chain_id = prior.chain_id))
      ),
      -- Integrity findings of the new passes only: each is judged against the pass before it,
      -- which for the first new pass is the chain's stored last pass.
      seq as (
        select chain_id, is_new, pass_number, input_content_hash,
          lag(pass_number) over w as prev_num,
          lag(current_content_hash) over w as prev_hash
        from (
          select n.chain_id, n.id, n.pass_number, n.input_content_hash, n.current_content_hash, true as is_new
          from new n join appendable ap on ap.chain_id = n.chain_id
          union all
          select chain_id, last_id, last_pass_number, null, last_hash, false from appendable where has_row
        ) as s
        window w as (partition by chain_id order by pass_number, id)
      ),
      integ as (
        select chain_id, (
          count(*) filter (where (prev_num is null and pass_number > 1) or pass_number = prev_num or pass_number > prev_num + 1)
          + count(*) filter (where prev_num = pass_number - 1 and input_content_hash is not null and input_content_hash <> prev_hash)
        )::int as n
        from seq where is_new group by chain_id
      ),
      last as (
        select distinct on (chain_id) chain_id, pass_id, pass_number, verdict, content_class
        from new order by chain_id, pass_number desc, id desc
      ),
      col as (
        select distinct on (chain_id) chain_id, pass_id, pass_number, verdict
        from new where verdict in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')
        order by chain_id, pass_number, id
      ),
      upsert as (
        insert into chains (
          chain_id, content_class, pass_count, boundary_count, last_pass_id, last_pass_number, last_verdict,
          collapse_pass_id, collapse_pass_number, collapse_verdict, has_floor_breach, has_collapse_imminent,
          mismatch_count, integrity_count, min_density, min_size_bytes, first_seen_at, last_activity_at
        )
        select
          ap.chain_id,
          last.content_class,
          coalesce(ap.prior_pass_count, 0) + ap.pass_count,
          coalesce(ap.boundary_count, 0),
          last.pass_id, last.pass_number, last.verdict,
          case when ap.collapse_pass_id is null then col.pass_id else ap.collapse_pass_id end,
          case when ap.collapse_pass_id is null then col.pass_number else ap.collapse_pass_number end,
          case when ap.collapse_pass_id is null then col.verdict else ap.collapse_verdict end,
          coalesce(ap.has_floor_breach, false) or ap.has_breach,
          coalesce(ap.has_collapse_imminent, false) or ap.has_imminent,
          coalesce(ap.prior_mismatch_count, 0) + ap.mismatch_count,
          coalesce(ap.integrity_count, 0) + coalesce(integ.n, 0),
          least(ap.prior_min_density, ap.min_density),
          least(ap.min_size_bytes, ap.min_size),
          least(ap.first_seen_at, ap.first_seen),
          greatest(ap.last_activity_at, ap.last_seen)
        from appendable ap
        join last on last.chain_id = ap.chain_id
        left join col on col.chain_id = ap.chain_id
        left join integ on integ.chain_id = ap.chain_id
        on conflict (chain_id) do update set
          content_class = excluded.content_class,
          pass_count = excluded.pass_count,
          last_pass_id = excluded.last_pass_id,
          last_pass_number = excluded.last_pass_number,
          last_verdict = excluded.last_verdict,
          collapse_pass_id = excluded.collapse_pass_id,
          collapse_pass_number = excluded.collapse_pass_number,
          collapse_verdict = excluded.collapse_verdict,
          has_floor_breach = excluded.has_floor_breach,
          has_collapse_imminent = excluded.has_collapse_imminent,
          mismatch_count = excluded.mismatch_count,
          integrity_count = excluded.integrity_count,
          min_density = excluded.min_density,
          min_size_bytes = excluded.min_size_bytes,
          first_seen_at = excluded.first_seen_at,
          last_activity_at = excluded.last_activity_at
      )
      select chain_id from agg where chain_id not in (select chain_id from appendable)`,
  );
  if (stale.length > 0) await refreshChainSummaries(tx, stale.map((r) => r.chain_id));
}

/**
 * Recomputes the `chains` summary rows of the given chains from their passes and
 * boundaries. The integrity count mirrors lib/chain-integrity.ts.
 */
export async function refreshChainSummaries(tx: Executor, chainIds: readonly string[]): Promise<void> {
  if (chainIds.length === 0) return;
  await tx.execute(sql`
    insert into chains (
      chain_id, content_class, pass_count, boundary_count, last_pass_id, last_pass_number, last_verdict,
      collapse_pass_id, collapse_pass_number, collapse_verdict, has_floor_breach, has_collapse_imminent,
      mismatch_count, integrity_count, min_density, min_size_bytes, first_seen_at, last_activity_at
    )
    select
      ids.chain_id,
      coalesce(last.content_class, 'default'),
      coalesce(agg.pass_count, 0),
      coalesce(b.boundary_count, 0),
      last.pass_id, last.pass_number, last.verdict,
      col.pass_id, col.pass_number, col.verdict,
      coalesce(agg.has_breach, false), coalesce(agg.has_imminent, false),
      coalesce(agg.mismatch_count, 0), coalesce(integ.n, 0),
      agg.min_density, agg.min_size,
      coalesce(least(agg.first_seen, b.first_seen), now()),
      coalesce(greatest(agg.last_seen, b.last_seen), now())
    from (select distinct c as chain_id from json_array_elements_text(${JSON.stringify([...new Set(chainIds)])}::json) as c) as ids
    left join lateral (
      select count(*)::int as pass_count,
        bool_or(verdict = 'FLOOR_BREACH_DETECTED') as has_breach,
        bool_or(verdict = 'COLLAPSE_IMMINENT') as has_imminent,
        (count(*) filter (where client_mismatch))::int as mismatch_count,
        min(semantic_density_score) as min_density,
        min(current_size_bytes) as min_size,
        min(created_at) as first_seen,
        max(greatest(created_at, received_at)) as last_seen
      from passes p where p.chain_id = ids.chain_id
    ) as agg on true
    left join lateral (
      select count(*)::int as boundary_count, min(created_at) as first_seen, max(created_at) as last_seen
      from boundaries bd where bd.chain_id = ids.chain_id
    ) as b on true
    left join lateral (
      select pass_id, pass_number, verdict, content_class from passes p
      where p.chain_id = ids.chain_id order by pass_number desc, id desc limit 1
    ) as last on true
    left join lateral (
      select pass_id, pass_number, verdict from passes p
      where p.chain_id = ids.chain_id and verdict in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')
      order by pass_number, id limit 1
    ) as col on true
    left join lateral (
      select (
        count(*) filter (where (prev_num is null and pass_number > 1) or pass_number = prev_num or pass_number > prev_num + 1)
        + count(*) filter (where prev_num = pass_number - 1 and input_content_hash is not null and input_content_hash <> prev_hash)
      )::int as n
      from (
        select pass_number, input_content_hash,
          lag(pass_number) over w as prev_num,
          lag(current_content_hash) over w as prev_hash
        from passes p where p.chain_id = ids.chain_id
        window w as (order by pass_number, id)
      ) as seq
    ) as integ on true
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
      has_floor_breach = excluded.has_floor_breach,
      has_collapse_imminent = excluded.has_collapse_imminent,
      mismatch_count = excluded.mismatch_count,
      integrity_count = excluded.integrity_count,
      min_density = excluded.min_density,
      min_size_bytes = excluded.min_size_bytes,
      first_seen_at = excluded.first_seen_at,
      last_activity_at = excluded.last_activity_at`);
}
