import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "../index";

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
