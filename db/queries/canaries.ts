// Chains by canary retention (docs/canaries.md), for the overview: each chain by its latest
// pass whose survival is known. Reads only passes with a retention (a partial index).
import "server-only";
import { sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import type { Executor } from "../types";

export interface CanaryRetentionCounts {
  /** Chains with canaries whose survival is known. */
  chains: number;
  /** Every planted canary survives at the latest known pass. */
  intact: number;
  partial: number;
  /** None survives. */
  lost: number;
  /** Below their class's min_canary_retention. */
  below_floor: number;
}

/** Chains last active since `since` (all when null), counted by their latest canary retention. */
export async function countCanaryRetention(since: Date | null, executor?: Executor): Promise<CanaryRetentionCounts> {
  const db = executor ?? (await getReadDb());
  const row = onlyRow(
    await queryRows(
      db,
      sql`
        with latest as (
          select distinct on (p.chain_id) p.chain_id, p.content_class, p.canary_retention
          from passes p
          where p.canary_retention is not null
          order by p.chain_id, p.pass_number desc, p.id desc
        ),
        floors as (
          select distinct on (content_class) content_class, min_canary_retention
          from policies order by content_class, version desc
        )
        select count(*) as chains,
          count(*) filter (where l.canary_retention >= 1) as intact,
          count(*) filter (where l.canary_retention > 0 and l.canary_retention < 1) as partial,
          count(*) filter (where l.canary_retention = 0) as lost,
          count(*) filter (where l.canary_retention < f.min_canary_retention) as below_floor
        from latest l
        join chains c on c.chain_id = l.chain_id
        left join floors f on f.content_class = l.content_class
        where ${since === null ? sql`true` : sql`c.last_activity_at >= ${since.toISOString()}::timestamptz`}`,
      { chains: col.int, intact: col.int, partial: col.int, lost: col.int, below_floor: col.int },
    ),
  );
  return row;
}
