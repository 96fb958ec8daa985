// Chains by canary retention (docs/canaries.md), for the overview: each chain by its latest
// pass whose survival is known. Reads only passes with a retention (a partial index).
import "server-only";
import { sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import type { Executor } from "../types";
import { type CanaryPoint, type CanaryRetentionCounts, canaryPoints } from "@/lib/canaries/survival";

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

/** The chain chart's canary line: passes whose survival is known, downsampled (lib/canaries/survival.ts). */
export async function getCanarySeries(chainId: string, executor?: Executor): Promise<CanaryPoint[]> {
  const db = executor ?? (await getReadDb());
  const [known, planted] = await Promise.all([
    queryRows(
      db,
      sql`select pass_id, pass_number, canary_retention as retention,
            jsonb_array_length(canaries_surviving) as surviving
          from passes where chain_id = ${chainId} and canary_retention is not null
          order by pass_number, id`,
      { pass_id: col.text, pass_number: col.int, retention: col.number, surviving: col.int },
    ),
    queryRows(
      db,
      sql`select pass_number, jsonb_array_length(canaries) as count
          from passes where chain_id = ${chainId} and canaries is not null`,
      { pass_number: col.int, count: col.int },
    ),
  ]);
  return canaryPoints(
    known,
    planted.flatMap((p) => Array.from({ length: p.count }, () => ({ pass_number: p.pass_number }))),
  );
}
