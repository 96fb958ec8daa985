// Chains by canary retention (docs/canaries.md), for the overview: each chain by its latest
// pass whose survival is known. Reads only passes with a retention (a partial index).
import "server-only";
import { sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import type { Executor } from "../types";
import { z } from "zod";
import { getPoliciesInForce } from "./policies";
import {
  type CanaryPoint,
  type CanaryRetentionCounts,
  canaryFindings,
  canaryPoints,
  type PlantedCanary,
} from "@/lib/canaries/survival";
import type { IntegrityFinding } from "@/lib/chains/integrity";
import { canarySchema } from "@/lib/schemas/passes";

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
  const { known, planted } = await readCanaries(chainId, executor);
  return canaryPoints(
    known.map((p) => ({ ...p, surviving: p.canaries_surviving.length, retention: p.canary_retention })),
    planted,
  );
}

/** What the chain page shows of a chain's canaries: its line, its class's floor, its canary_lost findings. */
export interface CanaryView {
  points: CanaryPoint[];
  floor: number | null;
  findings: IntegrityFinding[];
}

export async function getCanaryView(chainId: string, contentClass: string): Promise<CanaryView> {
  const db = await getReadDb();
  const { known, planted } = await readCanaries(chainId, db);
  if (known.length === 0) return { points: [], floor: null, findings: [] };
  const floor = (await getPoliciesInForce([contentClass], db)).get(contentClass)?.min_canary_retention ?? null;
  return {
    points: canaryPoints(
      known.map((p) => ({ ...p, surviving: p.canaries_surviving.length, retention: p.canary_retention })),
      planted,
    ),
    floor,
    findings: canaryFindings(known, planted, floor),
  };
}

/** A chain's passes whose survival is known, and its planted canaries: both through partial indexes. */
async function readCanaries(chainId: string, executor?: Executor) {
  const db = executor ?? (await getReadDb());
  const [known, stored] = await Promise.all([
    queryRows(
      db,
      sql`select pass_id, pass_number, canaries_surviving, canary_retention
          from passes where chain_id = ${chainId} and canary_retention is not null
          order by pass_number, id`,
      {
        pass_id: col.text,
        pass_number: col.int,
        canaries_surviving: col.jsonOf(z.array(z.string())),
        canary_retention: col.number,
      },
    ),
    queryRows(
      db,
      sql`select pass_number, canaries from passes
          where chain_id = ${chainId} and canaries is not null order by pass_number, id`,
      { pass_number: col.int, canaries: col.jsonOf(z.array(canarySchema)) },
    ),
  ]);
  const planted: PlantedCanary[] = [];
  for (const row of stored)
    for (const c of row.canaries)
      if (!planted.some((p) => p.id === c.id)) planted.push({ ...c, pass_number: row.pass_number });
  return { known, planted };
}
