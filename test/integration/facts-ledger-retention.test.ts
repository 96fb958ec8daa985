// A facts ledger's facts (chain_facts, docs/facts.md) have no foreign key to their ledger, so
// that writing a new ledger at ingest stays cheap: whatever deletes ledgers must delete their
// facts too. Today that is retention, with the chain's source (db/queries/retention.ts), and the
// fold, when a pass of another list drops a ledger (db/ingest/fact-ledger.ts). A chain retention
// takes leaves no fact behind, a chain it keeps keeps its facts, and a chain started again under
// the same id gets a ledger made afresh.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, summariesSettled } from "@/db/index";
import { ingestPasses } from "@/db/ingest/passes";
import { deleteExpiredChains } from "@/db/queries/retention";
import { col, onlyRow, queryRows } from "@/db/sql";
import { listSourceFacts } from "@/lib/measure/fact-ledger";
import { passReceiptSchema } from "@/lib/schemas/passes";
import { contentReceipt } from "./api-helpers";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const DAY = 86_400_000;
const SOURCE =
  "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB, a --dry-run flag for migrate and Postgres 17 support. Fixes #4412 and #4398; /v1/export is removed.";
const LOSSY = "Release 3.9.0 adds Parquet export up to 4 GB.";
const listed = listSourceFacts(SOURCE);

/** A chain whose pass 1 brings the source and pass 2 loses most of its facts. */
async function seedChain(chainId: string, createdAt: Date): Promise<void> {
  await ingestPasses(
    [SOURCE, LOSSY].map((content, i) =>
      passReceiptSchema.parse(
        contentReceipt(chainId, i + 1, content, {
          created_at: new Date(createdAt.getTime() + i * 1000).toISOString(),
          ...(i === 0 ? { input_content: SOURCE } : {}),
        }),
      ),
    ),
  );
}

async function facts(chainId: string) {
  return queryRows(
    await getDb(),
    sql`select rank, fact, fate, first_lost_pass from chain_facts where chain_id = ${chainId} order by rank`,
    { rank: col.int, fact: col.text, fate: col.text, first_lost_pass: col.number.nullable() },
  );
}

/** Facts whose ledger is gone, whichever chain they were of. */
async function orphanFacts(): Promise<number> {
  const rows = await queryRows(
    await getDb(),
    sql`select count(*) as n from chain_facts f
        where not exists (select 1 from chain_fact_ledgers l where l.chain_id = f.chain_id)`,
    { n: col.int },
  );
  return onlyRow(rows).n;
}

describe("chain_facts and deleted ledgers", () => {
  it("has no foreign key to its ledger: the deletes of ledgers take the facts themselves", async () => {
    const keys = await queryRows(
      await getDb(),
      sql`select conname from pg_constraint where conrelid = 'chain_facts'::regclass and contype = 'f'`,
      { conname: col.text },
    );
    expect(keys).toEqual([]);
  });

  it("retention takes a chain's facts with its source and leaves a kept chain's facts", async () => {
    const now = Date.now();
    await seedChain("fr-old", new Date(now));
    // Active 60 days ahead: kept when the clock below takes fr-old.
    await seedChain("fr-kept", new Date(now + 60 * DAY));
    await summariesSettled();
    const made = await facts("fr-old");
    expect(made.map((f) => f.fact)).toEqual(listed.facts.map((f) => f.fact));
    expect(made.some((f) => f.fate === "lost" && f.first_lost_pass === 2)).toBe(true);
    const kept = await facts("fr-kept");
    expect(kept).toEqual(made);

    const run = await deleteExpiredChains({ now: new Date(now + 40 * DAY), days: 30 });
    expect(run).toMatchObject({ chains: 1, passes: 2, complete: true });
    expect(await facts("fr-old")).toEqual([]);
    expect(await orphanFacts()).toBe(0);
    expect(await facts("fr-kept")).toEqual(kept);

    // The same chain id again: a new source, a new ledger, none of the old facts in its way.
    await seedChain("fr-old", new Date(now + 50 * DAY));
    expect(await facts("fr-old")).toEqual(made);
    expect(await orphanFacts()).toBe(0);
  });
});
