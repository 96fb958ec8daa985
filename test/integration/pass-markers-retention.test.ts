// A pass's marker links (pass_markers, docs/markers.md) have no foreign key to their pass, so
// that writing them at ingest stays cheap: whatever deletes passes must delete them too. Today
// that is retention (db/queries/retention.ts); a chain it takes leaves no link behind, and a
// chain it keeps keeps all of its links.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, summariesSettled } from "@/db/index";
import { ingestPasses } from "@/db/ingest/passes";
import { storeOriginal } from "@/db/queries/originals/store";
import { deleteExpiredChains } from "@/db/queries/retention";
import { col, onlyRow, queryRows } from "@/db/sql";
import { formatMarker, markerKey } from "@/lib/originals/marker";
import { passReceiptSchema } from "@/lib/schemas/passes";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const DAY = 86_400_000;
const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const originals = Array.from({ length: 4 }, (_, i) => `tool output ${i}: ${"a long build log line\n".repeat(20)}`);

/** A chain whose pass n names stored originals n and n + 1. */
async function seedMarkedChain(chainId: string, passes: number, createdAt: Date): Promise<void> {
  await ingestPasses(
    Array.from({ length: passes }, (_, i) => {
      const content = `pass ${i + 1} of ${chainId}, compressed. ${formatMarker(markerKey(sha(originals[i % 4] ?? "")))} ${formatMarker(markerKey(sha(originals[(i + 1) % 4] ?? "")))}`;
      return passReceiptSchema.parse({
        chain_id: chainId,
        pass_id: `${chainId}.p${i + 1}`,
        pass_number: i + 1,
        current_content_hash: sha(content),
        current_size_bytes: Buffer.byteLength(content),
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.9,
        content,
        created_at: new Date(createdAt.getTime() + i * 1000).toISOString(),
      });
    }),
  );
}

async function links(chainId: string): Promise<number> {
  const rows = await queryRows(await getDb(), sql`select count(*) as n from pass_markers where chain_id = ${chainId}`, {
    n: col.int,
  });
  return onlyRow(rows).n;
}

/** Links whose pass is gone, whichever chain they were of. */
async function orphanLinks(): Promise<number> {
  const rows = await queryRows(
    await getDb(),
    sql`select count(*) as n from pass_markers m
        where not exists (select 1 from passes p where p.chain_id = m.chain_id and p.pass_id = m.pass_id)`,
    { n: col.int },
  );
  return onlyRow(rows).n;
}

describe("pass_markers and deleted passes", () => {
  it("has no foreign key to passes: the deletes of passes take the links themselves", async () => {
    const keys = await queryRows(
      await getDb(),
      sql`select conname from pg_constraint where conrelid = 'pass_markers'::regclass and contype = 'f'`,
      { conname: col.text },
    );
    expect(keys).toEqual([]);
  });

  it("retention takes a chain's links with its passes and leaves a kept chain's links", async () => {
    for (const original of originals) await storeOriginal({ original });
    const now = Date.now();
    await seedMarkedChain("pm-old", 3, new Date(now));
    // Active 60 days ahead: kept when the clock below takes pm-old.
    await seedMarkedChain("pm-kept", 3, new Date(now + 60 * DAY));
    await summariesSettled();
    // One per chain and original named, on the first pass of the batch that names it.
    expect(await links("pm-old")).toBe(4);
    const kept = await links("pm-kept");
    expect(kept).toBe(4);
    expect(await orphanLinks()).toBe(0);

    const run = await deleteExpiredChains({ now: new Date(now + 40 * DAY), days: 30 });
    expect(run).toMatchObject({ chains: 1, passes: 3, complete: true });
    expect(await links("pm-old")).toBe(0);
    expect(await orphanLinks()).toBe(0);
    expect(await links("pm-kept")).toBe(kept);
  });
});
