// Migration 0007 brings chains summarised before it up to the directive integrity kinds. Its
// backfill must give what a full recompute gives (db/queries/chain-summary.ts).
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, queryRows } from "@/db/index";
import { seedDemoIfEmpty } from "@/db/demo";
import { refreshChainSummaries } from "@/db/queries/chain-summary";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const FIGURES = sql`select chain_id, integrity_count, continued_after_halt_count, restore_not_honoured_count, halt_pass_number
  from chains order by chain_id`;

describe("migration 0007 backfill", () => {
  it("equals a full recompute of the chain summaries", async () => {
    await seedDemoIfEmpty();
    const db = await getDb();
    const recomputed = JSON.stringify(await queryRows(db, FIGURES));
    expect(recomputed).toContain('"continued_after_halt_count":1');
    // As a summary written before the migration: the old kinds only, nothing of the new ones.
    await db.execute(sql`update chains set integrity_count = integrity_count - continued_after_halt_count - restore_not_honoured_count,
      continued_after_halt_count = 0, restore_not_honoured_count = 0, halt_pass_number = null`);
    const file = readFileSync(
      path.join(process.cwd(), "drizzle", "0007_directive_integrity_and_refused_nodes.sql"),
      "utf8",
    );
    const backfill = file.split("--> statement-breakpoint").filter((s) => /^\s*(--.*\n\s*)*UPDATE/i.test(s));
    expect(backfill).toHaveLength(2);
    for (const statement of backfill) await db.execute(sql.raw(statement));
    expect(JSON.stringify(await queryRows(db, FIGURES))).toBe(recomputed);
    await db.transaction(async (tx) => {
      const ids = (await queryRows<{ chain_id: string }>(tx, sql`select chain_id from chains`)).map((r) => r.chain_id);
      await refreshChainSummaries(tx, ids);
    });
    expect(JSON.stringify(await queryRows(db, FIGURES))).toBe(recomputed);
  });
});
