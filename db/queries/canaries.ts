// Canaries of chains (docs/canaries.md): the overview's chains by canary retention (each chain
// by its latest pass whose survival is known), the chain page's canary line and findings, and
// the summariser's count of each chain's canary_lost findings. Reads only passes with a
// retention or a planting (partial indexes).
import "server-only";
import { sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import type { Executor } from "../types";
import { z } from "zod";
import { getPoliciesInForce } from "./policies";
import { type OutboxEvent, recordEvents } from "./webhooks";
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
  return { known, planted: plantedOf(stored) };
}

/** The canary findings of some chains as judged now: their new counts, and the findings to announce. */
export interface CanaryJudgement {
  /** The chains whose count of canary_lost findings is not what their summary holds. */
  counts: { chain_id: string; n: number }[];
  /** Their findings at or after the lowest pass number of the batch (older ones were announced). */
  events: OutboxEvent[];
}

/**
 * Judges again the canary_lost findings of chains whose folded passes report on canaries (or
 * plant them), from `from_number`, the lowest such pass number of the batch: in the
 * summariser's transaction, after the fold, under its lock. A chain's findings are judged over
 * all its passes with a known survival (a partial index), with the class's
 * min_canary_retention in force now: a canary's loss depends on whether it was missing at the
 * pass before, and passes may arrive late.
 */
export async function judgeCanaryFindings(
  tx: Executor,
  chains: readonly { chain_id: string; from_number: number }[],
): Promise<CanaryJudgement> {
  if (chains.length === 0) return { counts: [], events: [] };
  const from = new Map(chains.map((c) => [c.chain_id, c.from_number]));
  const ids = [...from.keys()];
  // One after another: they share the transaction's connection.
  const known = await queryRows(
    tx,
    sql`select chain_id, pass_id, pass_number, canaries_surviving, canary_retention
        from passes where chain_id in ${ids} and canary_retention is not null
        order by chain_id, pass_number, id`,
    {
      chain_id: col.text,
      pass_id: col.text,
      pass_number: col.int,
      canaries_surviving: col.jsonOf(z.array(z.string())),
      canary_retention: col.number,
    },
  );
  const stored = await queryRows(
    tx,
    sql`select chain_id, pass_number, canaries from passes
        where chain_id in ${ids} and canaries is not null order by chain_id, pass_number, id`,
    { chain_id: col.text, pass_number: col.int, canaries: col.jsonOf(z.array(canarySchema)) },
  );
  const summaries = await queryRows(
    tx,
    sql`select chain_id, content_class, canary_finding_count from chains where chain_id in ${ids}`,
    { chain_id: col.text, content_class: col.text, canary_finding_count: col.int },
  );
  const knownBy = groupBy(known, (p) => p.chain_id);
  const storedBy = groupBy(stored, (p) => p.chain_id);
  const floors = await getPoliciesInForce([...new Set(summaries.map((s) => s.content_class))], tx);
  const judgement: CanaryJudgement = { counts: [], events: [] };
  for (const summary of summaries) {
    const planted = plantedOf(storedBy.get(summary.chain_id) ?? []);
    if (planted.length === 0 && summary.canary_finding_count === 0) continue;
    const floor = floors.get(summary.content_class)?.min_canary_retention ?? null;
    const findings = planted.length === 0 ? [] : canaryFindings(knownBy.get(summary.chain_id) ?? [], planted, floor);
    if (findings.length !== summary.canary_finding_count)
      judgement.counts.push({ chain_id: summary.chain_id, n: findings.length });
    const lowest = from.get(summary.chain_id) ?? 0;
    for (const f of findings) {
      if (f.pass_number < lowest) continue;
      judgement.events.push({
        type: "chain.integrity_finding",
        // The detail names the canary (or the floor): one pass can lose several.
        dedupeKey: JSON.stringify([
          "chain.integrity_finding",
          summary.chain_id,
          f.kind,
          f.pass_id,
          f.pass_number,
          f.detail,
        ]),
        data: { chain_id: summary.chain_id, content_class: summary.content_class, ...f },
      });
    }
  }
  return judgement;
}

/**
 * Writes a judgement: each chain's `canary_finding_count`, and its `integrity_count`, of which
 * it is a part; each finding to the outbox as a `chain.integrity_finding` event, announced once
 * (its dedupe key). Answers the kinds the outbox took, for the metric.
 */
export async function recordCanaryFindings(tx: Executor, judgement: CanaryJudgement): Promise<"canary_lost"[]> {
  if (judgement.counts.length > 0)
    await tx.execute(sql`
      update chains c set canary_finding_count = n.n, integrity_count = c.integrity_count - c.canary_finding_count + n.n
      from json_to_recordset(${JSON.stringify(judgement.counts)}::json) as n(chain_id text, n int)
      where c.chain_id = n.chain_id`);
  const { recorded } = await recordEvents(tx, judgement.events);
  return recorded.filter((r) => r.type === "chain.integrity_finding").map(() => "canary_lost" as const);
}

/** A chain's planted canaries from its planting passes (chain order): the first planting of an id counts. */
function plantedOf(rows: readonly { pass_number: number; canaries: readonly z.infer<typeof canarySchema>[] }[]) {
  const planted: PlantedCanary[] = [];
  for (const row of rows)
    for (const c of row.canaries)
      if (!planted.some((p) => p.id === c.id)) planted.push({ ...c, pass_number: row.pass_number });
  return planted;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}
