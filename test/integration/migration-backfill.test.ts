// Migrations that bring stored chains and the overview's roll-ups up to new columns and
// counts: each backfill must give what ingest (or a full recompute) gives today
// (db/queries/chain-summary.ts for the chains, db/ingest/rollups.ts for the roll-ups).
import { readFileSync } from "node:fs";
import path from "node:path";
import { type SQL, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, summariesSettled } from "@/db/index";
import { ingestPasses } from "@/db/ingest/passes";
import { updatePolicy } from "@/db/queries/policies";
import { chains } from "@/db/schema";
import { col, queryRows } from "@/db/sql";
import { refreshChainSummaries } from "@/db/queries/chain-summary";
import { chainStatusCondition } from "@/db/queries/chains";
import { RECOMPUTE_CHAIN_ROLLUPS, RECOMPUTE_CHAIN_ROLLUPS_DAILY } from "@/db/ingest/rollups";
import { setUpTestDatabase } from "../support/database";
import { rawRows } from "../support/raw-rows";

setUpTestDatabase({ from: "demo" });

const FIGURES = sql`select chain_id, integrity_count, continued_after_halt_count, restore_not_honoured_count, halt_pass_number
  from chains order by chain_id`;
const figures = async () =>
  JSON.stringify(
    await queryRows(await getDb(), FIGURES, {
      chain_id: col.text,
      integrity_count: col.int,
      continued_after_halt_count: col.int,
      restore_not_honoured_count: col.int,
      halt_pass_number: col.int.nullable(),
    }),
  );

const OLD_COLUMNS = "active_chains, integrity_findings, started_chains, started_collapsed, collapsed_chains";

/** A roll-up's rows as sorted JSON, all-zero rows left out. */
async function rollup(query: SQL): Promise<string> {
  const db = await getDb();
  const found = await rawRows(db, query);
  return JSON.stringify(
    found
      .map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : String(v)])),
      )
      .map((r) => ({
        ...r,
        ...(r.hour ? { hour: new Date(r.hour).toISOString() } : {}),
        ...(r.day ? { day: new Date(r.day).toISOString() } : {}),
      }))
      .filter((r) => Object.entries(r).some(([k, v]) => !["hour", "day", "content_class"].includes(k) && v !== "0"))
      .map((r) => JSON.stringify(r))
      .sort(),
  );
}

// The columns as of migration 0008 (later migrations add more, with backfills of their own),
// but for the three whose meaning 0017 changed (a chain that reached a floor counted as
// collapsed until then; since, one that went past it): active_collapsed, started_collapsed
// and collapsed_chains have their own test below.
const COLUMNS_0008 = `active_chains, integrity_findings, started_chains, active_floor_breached, active_client_mismatch,
  active_broken_integrity, active_continued_after_halt, active_restore_not_honoured`;
const HOURLY = sql.raw(`select hour, content_class, ${COLUMNS_0008} from chain_rollups`);
const DAILY = sql.raw(`select day, content_class, ${COLUMNS_0008} from chain_rollups_daily`);

/** Runs the UPDATE statements of a migration file (its backfill), comments left out; answers how many. */
async function runUpdates(file: string): Promise<number> {
  const text = readFileSync(path.join(process.cwd(), "drizzle", file), "utf8");
  const updates = text
    .split("--> statement-breakpoint")
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter((s) => s.startsWith("UPDATE"));
  const db = await getDb();
  for (const statement of updates) await db.execute(sql.raw(statement));
  return updates.length;
}

describe("migration 0008 backfill", () => {
  it("equals a full recompute of the chain summaries and of the roll-ups", async () => {
    const db = await getDb();
    const recomputed = await figures();
    expect(recomputed).toContain('"continued_after_halt_count":1');
    expect(recomputed).toContain('"restore_not_honoured_count":1');
    const hourly = await rollup(HOURLY);
    const daily = await rollup(DAILY);
    expect(hourly).toBe(
      await rollup(sql`select hour, content_class, ${sql.raw(COLUMNS_0008)} from (${RECOMPUTE_CHAIN_ROLLUPS}) as r`),
    );
    expect(daily).toBe(
      await rollup(
        sql`select day, content_class, ${sql.raw(COLUMNS_0008)} from (${RECOMPUTE_CHAIN_ROLLUPS_DAILY}) as r`,
      ),
    );
    expect(hourly).toMatch(/active_continued_after_halt\\":\\"[1-9]/);

    // Migration 0008 predates canaries: its backfill counts the hash and directive findings of
    // passes, not the canary findings the summariser judges since 0024. The figures it must
    // reach are today's without those.
    await db.execute(
      sql`update chains set integrity_count = integrity_count - canary_finding_count, canary_finding_count = 0`,
    );
    const withoutCanaries = await figures();
    const recompute = async (bucket: "hour" | "day", query: SQL) =>
      rollup(sql`select ${sql.raw(bucket)}, content_class, ${sql.raw(COLUMNS_0008)} from (${query}) as r`);
    const hourlyWithoutCanaries = await recompute("hour", RECOMPUTE_CHAIN_ROLLUPS);
    const dailyWithoutCanaries = await recompute("day", RECOMPUTE_CHAIN_ROLLUPS_DAILY);

    // As written before the migration: summaries with the old kinds only, roll-ups without the
    // status columns and with the old integrity counts.
    await db.execute(sql`update chains set integrity_count = integrity_count - continued_after_halt_count - restore_not_honoured_count,
      continued_after_halt_count = 0, restore_not_honoured_count = 0, halt_pass_number = null`);
    for (const [table, recompute] of [
      ["chain_rollups", RECOMPUTE_CHAIN_ROLLUPS],
      ["chain_rollups_daily", RECOMPUTE_CHAIN_ROLLUPS_DAILY],
    ] as const) {
      const bucket = table === "chain_rollups" ? "hour" : "day";
      await db.execute(sql`delete from ${sql.identifier(table)}`);
      await db.execute(sql`insert into ${sql.identifier(table)} (${sql.raw(`${bucket}, content_class, ${OLD_COLUMNS}`)})
        select ${sql.raw(`${bucket}, content_class, ${OLD_COLUMNS}`)} from (${recompute}) as r`);
    }
    expect(await rollup(HOURLY)).not.toBe(hourly);

    const file = readFileSync(
      path.join(process.cwd(), "drizzle", "0008_directive_integrity_and_refused_nodes.sql"),
      "utf8",
    );
    const backfill = file.slice(file.indexOf("-- Backfill.")).split("--> statement-breakpoint");
    expect(backfill).toHaveLength(6);
    for (const statement of backfill) await db.execute(sql.raw(statement));
    expect(await figures()).toBe(withoutCanaries);
    expect(await rollup(HOURLY)).toBe(hourlyWithoutCanaries);
    expect(await rollup(DAILY)).toBe(dailyWithoutCanaries);

    await db.transaction(async (tx) => {
      const ids = (await tx.select({ chain_id: chains.chainId }).from(chains)).map((r) => r.chain_id);
      await refreshChainSummaries(tx, ids);
    });
    expect(await figures()).toBe(withoutCanaries);
  });
});

// Migration 0013 brings passes measured before it (their measurement only in server_checks)
// up to the measurement columns, and their chains and the overview's roll-ups up to the
// measurement-mismatch counts: its backfill must give what ingest gives today.
describe("migration 0013 backfill", () => {
  it("gives the measurement columns, counts and roll-ups that ingest gives", async () => {
    const source = "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB and fixes #4412 and #4398.";
    const receipt = (chain: string, n: number, content: string) => ({
      chain_id: chain,
      pass_id: `${chain}.p${n}`,
      pass_number: n,
      current_content_hash: `${chain}:${n}`,
      current_size_bytes: Buffer.byteLength(content),
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9,
      content_class: "backfill-0013",
      content,
      ...(n === 1 ? { input_content: source } : {}),
    });
    await updatePolicy("backfill-0013", {
      min_size_bytes: 0,
      min_semantic_density: 0.3,
      max_pass_number: 10,
      required_fields: [],
    });
    await ingestPasses([
      receipt("bf-void", 1, source),
      receipt("bf-void", 2, "The document discusses various topics."),
      receipt("bf-kept", 1, source),
      receipt("bf-kept", 2, source),
    ]);
    await summariesSettled();
    const db = await getDb();
    // This class's rows only: other tests' data may hold classes that follow measured density,
    // which nothing before the migration could.
    const PASSES = sql`select pass_id, effective_verdict, measured_density, measurement_mismatch from passes
      where content_class = 'backfill-0013' order by pass_id`;
    const CHAINS = sql`select chain_id, measurement_mismatch_count from chains
      where content_class = 'backfill-0013' order by chain_id`;
    const ROLLUPS = sql.raw(`select
      (select json_agg(r order by hour) from (select hour, active_measurement_mismatch from chain_rollups
        where content_class = 'backfill-0013') r) as h,
      (select json_agg(r order by day) from (select day, active_measurement_mismatch from chain_rollups_daily
        where content_class = 'backfill-0013') r) as d`);
    const snapshot = async () =>
      JSON.stringify([
        await queryRows(db, PASSES, {
          pass_id: col.text,
          effective_verdict: col.text,
          measured_density: col.number.nullable(),
          measurement_mismatch: col.bool,
        }),
        await queryRows(db, CHAINS, { chain_id: col.text, measurement_mismatch_count: col.int }),
        await queryRows(db, ROLLUPS, { h: col.json, d: col.json }),
      ]);
    const ingested = await snapshot();
    expect(ingested).toContain('"measurement_mismatch_count":1');
    expect(ingested).toMatch(/"active_measurement_mismatch":[1-9]/);

    // As stored before the migration: the measurement only in server_checks, counts at their defaults.
    const ours = sql`content_class = 'backfill-0013'`;
    await db.execute(sql`update passes set measured_density = null, measurement_mismatch = false,
      effective_verdict = 'SAFE_TO_COMPRESS' where ${ours}`);
    await db.execute(sql`update chains set measurement_mismatch_count = 0 where ${ours}`);
    await db.execute(sql`update chain_rollups set active_measurement_mismatch = 0 where ${ours}`);
    await db.execute(sql`update chain_rollups_daily set active_measurement_mismatch = 0 where ${ours}`);
    expect(await snapshot()).not.toBe(ingested);

    expect(await runUpdates("0013_measured_density_source.sql")).toBe(4);
    expect(await snapshot()).toBe(ingested);
  });
});

describe("migration 0015 backfill", () => {
  it("gives each chain the lowest measured density that ingest folds", async () => {
    const source = "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB and fixes #4412 and #4398.";
    const receipt = (chain: string, n: number, content: string | null) => ({
      chain_id: chain,
      pass_id: `${chain}.p${n}`,
      pass_number: n,
      current_content_hash: `${chain}:${n}`,
      current_size_bytes: 80,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9,
      content_class: "backfill-0015",
      ...(content === null ? {} : { content }),
      ...(n === 1 ? { input_content: source } : {}),
    });
    await ingestPasses([
      receipt("bf15-void", 1, source),
      receipt("bf15-void", 2, "The document discusses various topics."),
      receipt("bf15-kept", 1, source),
      receipt("bf15-claims", 1, null),
    ]);
    await summariesSettled();
    const db = await getDb();
    const CHAINS = sql`select chain_id, min_measured_density from chains
      where content_class = 'backfill-0015' order by chain_id`;
    const snapshot = async () =>
      queryRows(db, CHAINS, { chain_id: col.text, min_measured_density: col.number.nullable() });
    const ingested = await snapshot();
    expect(ingested.map((c) => c.min_measured_density === null)).toEqual([true, false, false]);
    const [, kept, voided] = ingested;
    expect(voided?.min_measured_density).toBeLessThan(kept?.min_measured_density ?? 0);

    // As stored before the migration: no column value.
    await db.execute(sql`update chains set min_measured_density = null where content_class = 'backfill-0015'`);
    expect(await snapshot()).not.toEqual(ingested);

    expect(await runUpdates("0015_chain_min_measured_density.sql")).toBe(1);
    expect(await snapshot()).toEqual(ingested);
  });
});

// Migration 0017 tells the guard's saves from failures: chains stored before it get the two
// columns the summaries keep from then on, and the overview's roll-ups stop counting a chain
// that reached a floor as collapsed (only one that went past it) and count the saves.
describe("migration 0017 backfill", () => {
  it("gives the outcome columns and roll-ups that ingest gives", async () => {
    const db = await getDb();
    const collapsed = chainStatusCondition("collapsed");
    const guarded = chainStatusCondition("guarded");
    const CHAINS = sql`select chain_id, unanswered_floor_pass_number, floor_answered from chains order by chain_id`;
    const COLUMNS = "active_collapsed, active_guarded, started_collapsed, collapsed_chains";
    const snapshot = async () =>
      JSON.stringify([
        await queryRows(db, CHAINS, {
          chain_id: col.text,
          unanswered_floor_pass_number: col.int.nullable(),
          floor_answered: col.bool,
        }),
        await rollup(sql.raw(`select hour, content_class, ${COLUMNS} from chain_rollups`)),
        await rollup(sql.raw(`select day, content_class, ${COLUMNS} from chain_rollups_daily`)),
      ]);
    const ingested = await snapshot();
    // The demo has both: the search agents that restored or accepted the loss, and the chains
    // that went on after a HALT or a restore.
    const counts = await queryRows(
      db,
      sql`select count(*) filter (where ${guarded}) as guarded, count(*) filter (where ${collapsed}) as collapsed,
            count(*) filter (where collapse_pass_id is not null and not ${collapsed}) as reached
          from chains`,
      { guarded: col.int, collapsed: col.int, reached: col.int },
    );
    expect(counts[0]?.guarded).toBeGreaterThan(0);
    expect(counts[0]?.collapsed).toBeGreaterThan(0);
    expect(counts[0]?.reached).toBeGreaterThan(counts[0]?.guarded ?? 0);

    // As stored before the migration: a chain counted as collapsed in the roll-ups when it
    // reached a floor (in the hours of its last activity, its start and its collapse point),
    // no save counted, and the chains without the two columns.
    for (const [table, bucket, width] of [
      ["chain_rollups", "hour", "1 hour"],
      ["chain_rollups_daily", "day", "1 day"],
    ] as const) {
      const at = (column: string) =>
        sql.raw(`date_bin('${width}', chains.${column}, timestamptz '2000-01-01 00:00:00+00')`);
      await db.execute(sql`
        update ${sql.identifier(table)} r set
          active_collapsed = r.active_collapsed + d.ac, active_guarded = r.active_guarded - d.ag,
          started_collapsed = r.started_collapsed + d.sc, collapsed_chains = r.collapsed_chains + d.cc
        from (
          select v.b, chains.content_class, sum(v.ac) as ac, sum(v.ag) as ag, sum(v.sc) as sc, sum(v.cc) as cc
          from chains cross join lateral (values
            (${at("last_activity_at")}, (chains.has_floor_breach or chains.has_collapse_imminent)::int - (${collapsed})::int,
              (${guarded})::int, 0, 0),
            (${at("first_seen_at")}, 0, 0, (chains.collapse_pass_id is not null)::int - (${collapsed})::int, 0),
            (${at("collapse_at")}, 0, 0, 0, 1 - (${collapsed})::int)
          ) as v(b, ac, ag, sc, cc)
          where v.b is not null group by 1, 2
        ) d where r.${sql.identifier(bucket)} = d.b and r.content_class = d.content_class`);
    }
    await db.execute(sql`update chains set unanswered_floor_pass_number = null, floor_answered = false`);
    expect(await snapshot()).not.toBe(ingested);

    expect(await runUpdates("0017_guarded_and_collapsed.sql")).toBe(3);
    expect(await snapshot()).toBe(ingested);
  });
});
