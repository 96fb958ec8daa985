// The summariser: the pass ingest stores passes and queues them, and answers; the chain
// summaries, roll-ups and outbox follow in a transaction of the summariser's own. A summary
// recomputed meanwhile leaves the queued passes out (the fold adds them, once), retention
// keeps a chain whose passes wait, and reads of this process wait for the fold.
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { getDb, getReadDb, summariesSettled } from "@/db/index";
import { chains } from "@/db/schema";
import { col, onlyRow, queryRows } from "@/db/sql";
import { foldQueued, getSummaryQueueStats } from "@/db/ingest/summaries";
import { getSharedChainVersion } from "@/db/queries/chain-events";
import { ingestPasses } from "@/db/ingest/passes";
import { refreshChainSummaries, SUMMARY_WRITER_LOCK_KEY } from "@/db/queries/chain-summary";
import { deleteExpiredChains } from "@/db/queries/retention";
import { passReceiptSchema } from "@/lib/schemas/passes";
import { driver, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const DAY = 86_400_000;

const receipts = (chainId: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) =>
    passReceiptSchema.parse({
      chain_id: chainId,
      pass_id: `${chainId}.p${from + i}`,
      pass_number: from + i,
      input_content_hash: from + i > 1 ? `${chainId}:${from + i - 1}` : undefined,
      current_content_hash: `${chainId}:${from + i}`,
      current_size_bytes: 4_000 - (from + i) * 100,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9 - (from + i) * 0.05,
    }),
  );

async function summaryOf(chainId: string) {
  const db = await getDb();
  const [row] = await db.select().from(chains).where(eq(chains.chainId, chainId));
  return row;
}

async function queued(chainId: string): Promise<number> {
  const db = await getDb();
  const { n } = onlyRow(
    await queryRows(db, sql`select count(*) as n from summary_queue where ${chainId} = any(chain_ids)`, { n: col.int }),
  );
  return n;
}

describe("the summariser", () => {
  it("leaves queued passes out of a recompute, folds them once, and retention keeps their chain meanwhile", async () => {
    await ingestPasses(receipts("sq-a", 1, 3));
    await summariesSettled();
    expect(await queued("sq-a")).toBe(0);
    const db = await getDb();
    // Pass 4 stored and queued the way the ingest does it, its fold not yet run.
    await db.transaction(async (tx) => {
      const { id } = onlyRow(
        await queryRows(
          tx,
          sql`insert into passes (chain_id, pass_id, pass_number, input_content_hash, current_content_hash,
              current_size_bytes, is_parseable, schema_valid, semantic_density_score, content_class, metadata,
              verdict, effective_verdict, directive, manifest_digest, policy_version, client_mismatch, body_digest, created_at)
            select chain_id, 'sq-a.p4', 4, current_content_hash, 'sq-a:4', 3000, is_parseable, schema_valid, 0.6,
              content_class, metadata, verdict, verdict, directive, manifest_digest, policy_version, client_mismatch, 'x',
              created_at
            from passes where pass_id = 'sq-a.p3'
            returning id`,
          { id: col.int },
        ),
      );
      await tx.execute(
        sql`insert into summary_queue (chain_ids, pass_ids) values (array['sq-a'], array[${id}]::bigint[])`,
      );
    });

    await db.transaction((tx) => refreshChainSummaries(tx, ["sq-a"]));
    expect(await summaryOf("sq-a")).toMatchObject({ passCount: 3, lastPassId: "sq-a.p3" });
    const waiting = await getSummaryQueueStats();
    expect(waiting.passes).toBe(1);
    expect(waiting.oldest_seconds).toBeGreaterThanOrEqual(0);

    // Its summary says nothing happened since pass 3; the queued pass says otherwise.
    const later = new Date(Date.now() + 30 * DAY);
    await deleteExpiredChains({ now: later, days: 1 });
    expect(await summaryOf("sq-a")).toBeDefined();

    await foldQueued(db);
    const folded = await summaryOf("sq-a");
    expect(folded).toMatchObject({ passCount: 4, lastPassId: "sq-a.p4" });
    expect(await queued("sq-a")).toBe(0);
    expect(await getSummaryQueueStats()).toEqual({ passes: 0, oldest_seconds: 0 });
    // Folded once: a full recompute from the passes finds the same row.
    await db.transaction((tx) => refreshChainSummaries(tx, ["sq-a"]));
    expect(await summaryOf("sq-a")).toEqual(folded);

    const run = await deleteExpiredChains({ now: later, days: 1 });
    expect(run).toMatchObject({ chains: 1, passes: 4 });
    expect(await summaryOf("sq-a")).toBeUndefined();
  });

  it.skipIf(driver !== "postgres")(
    "answers an ingest while the summaries' writers are busy, and reads of this process wait for its fold",
    async () => {
      // Another session holds the lock every writer of summaries takes: a long fold on
      // another instance, a boundary batch, a retention batch.
      const { name } = onlyRow(
        await queryRows(await getDb(), sql`select current_database() as name`, { name: col.text }),
      );
      const url = new URL(process.env.TEST_DATABASE_URL as string);
      url.pathname = `/${name}`;
      const session = postgres(url.toString(), { max: 1, onnotice: () => {} });
      let release!: () => void;
      let holding!: () => void;
      const held = new Promise<void>((r) => (holding = r));
      const holder = session.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(${SUMMARY_WRITER_LOCK_KEY})`;
        holding();
        await new Promise<void>((r) => (release = r));
      });
      try {
        await held;
        const answer = await ingestPasses(receipts("sq-b", 1, 2));
        expect(answer.created).toBe(2);
        expect(await queued("sq-b")).toBe(1);
        expect(await summaryOf("sq-b")).toBeUndefined();
        expect((await getSummaryQueueStats()).passes).toBe(2);
        const read = getReadDb().then(() => "read");
        const waited = await Promise.race([read, new Promise((r) => setTimeout(() => r("waiting"), 300))]);
        expect(waited).toBe("waiting");
        // A live stream's change check reads what is folded so far: it neither waits for the
        // fold nor starts one (the chain has no summary yet).
        const check = await Promise.race([
          getSharedChainVersion("sq-b"),
          new Promise((r) => setTimeout(() => r("waiting"), 300)),
        ]);
        expect(check).toBeNull();
        release();
        expect(await read).toBe("read");
        expect(await summaryOf("sq-b")).toMatchObject({ passCount: 2, lastPassId: "sq-b.p2" });
        expect(await queued("sq-b")).toBe(0);
      } finally {
        release?.();
        await holder;
        await session.end();
      }
    },
    60_000,
  );
});
