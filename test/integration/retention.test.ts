// Retention with a clock the test controls: chains whose last activity is older than the
// kept days go with their passes, boundaries, traces and cached originals, in bounded
// batches; newer chains stay whole; the overview's history keeps its counts. The worker
// started with an injected clock does the same on its own and stops cleanly.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { col, onlyRow, queryRows } from "@/db/sql";
import { ingestBoundaries } from "@/db/ingest/boundaries";
import { storeOriginal } from "@/db/queries/originals/store";
import { getOverviewFigures } from "@/db/queries/overview";
import { ingestPasses } from "@/db/ingest/passes";
import { updatePolicy } from "@/db/queries/policies";
import { deleteExpiredChains, getClassRetention, getOldestActivity } from "@/db/queries/retention";
import { storeTrace } from "@/db/queries/traces";
import { retentionDaysFromEnv, startRetentionWorker } from "@/db/workers/retention";
import { boundaryReceiptSchema } from "@/lib/schemas/boundaries";
import { storeOriginalSchema } from "@/lib/schemas/originals";
import { passReceiptSchema } from "@/lib/schemas/passes";
import { traceSubmissionSchema } from "@/lib/schemas/traces";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const DAY = 86_400_000;

async function seedChain(chainId: string, passes: number, createdAt: Date, contentClass?: string) {
  await ingestPasses(
    Array.from({ length: passes }, (_, i) =>
      passReceiptSchema.parse({
        chain_id: chainId,
        ...(contentClass ? { content_class: contentClass } : {}),
        pass_id: `${chainId}.p${i + 1}`,
        pass_number: i + 1,
        current_content_hash: `${chainId}:${i + 1}`,
        current_size_bytes: 1_000 - i * 100,
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.9 - i * 0.1,
        created_at: new Date(createdAt.getTime() + i * 1000).toISOString(),
      }),
    ),
  );
  await ingestBoundaries([
    boundaryReceiptSchema.parse({ chain_id: chainId, pass_number: passes, strategy: "halt", reason: "done" }),
  ]);
  await storeTrace(
    traceSubmissionSchema.parse({
      trace_id: `trace-${chainId}`,
      chain_id: chainId,
      nodes: [{ node_id: "n1", node_type: "VERIFIED_CONCLUSION", content: "ok", verification_receipt: "r" }],
    }),
  );
  await storeOriginal(storeOriginalSchema.parse({ original: `original of ${chainId}`, chain_id: chainId }));
}

async function countsOf(chainId: string) {
  const db = await getDb();
  const rows = await queryRows(
    db,
    sql`select
      (select count(*) from chains where chain_id = ${chainId}) as chains,
      (select count(*) from passes where chain_id = ${chainId}) as passes,
      (select count(*) from boundaries where chain_id = ${chainId}) as boundaries,
      (select count(*) from traces where chain_id = ${chainId}) as traces,
      (select count(*) from originals where chain_id = ${chainId}) as originals`,
    { chains: col.int, passes: col.int, boundaries: col.int, traces: col.int, originals: col.int },
  );
  return onlyRow(rows);
}

/** Every table of the schema with a chain_id column, as the database itself lists them. */
async function tablesWithChainId(): Promise<string[]> {
  const rows = await queryRows(
    await getDb(),
    sql`select table_name from information_schema.columns
      where table_schema = current_schema() and column_name = 'chain_id' order by table_name`,
    { table_name: col.text },
  );
  return rows.map((r) => r.table_name);
}

async function rowsOfChain(table: string, chainId: string): Promise<number> {
  const row = onlyRow(
    await queryRows(
      await getDb(),
      sql`select count(*) as n from ${sql.identifier(table)} where chain_id = ${chainId}`,
      { n: col.int },
    ),
  );
  return row.n;
}

describe("retention", () => {
  it("reads FLOORLINE_RETENTION_DAYS", () => {
    expect(retentionDaysFromEnv({})).toBeNull();
    expect(retentionDaysFromEnv({ FLOORLINE_RETENTION_DAYS: "30" })).toBe(30);
    expect(retentionDaysFromEnv({ FLOORLINE_RETENTION_DAYS: "0" })).toBeNull();
    expect(retentionDaysFromEnv({ FLOORLINE_RETENTION_DAYS: "soon" })).toBeNull();
  });

  it("deletes chains past the kept days with everything of theirs, in batches, and keeps the history's counts", async () => {
    const now = Date.now();
    // Last activity is when a receipt arrived (now) or its own time if later: these 12 are
    // active now, the other is active 60 days ahead.
    for (let i = 0; i < 12; i++) await seedChain(`old-${i}`, 3, new Date(now - 90 * DAY));
    await seedChain("recent", 3, new Date(now + 60 * DAY));
    const before = await getOverviewFigures(null);
    expect(before.chains).toBe(13);

    // 30 days kept, seen from 40 days ahead: the 12 are 40 days old, "recent" is not.
    const clock = new Date(now + 40 * DAY);
    const first = await deleteExpiredChains({ now: clock, days: 30, batchSize: 5, maxBatches: 2 });
    expect(first).toMatchObject({ chains: 10, passes: 30, boundaries: 10, traces: 10, originals: 10, complete: false });
    const rest = await deleteExpiredChains({ now: clock, days: 30, batchSize: 5 });
    expect(rest).toMatchObject({ chains: 2, passes: 6, complete: true });

    for (let i = 0; i < 12; i++)
      expect(await countsOf(`old-${i}`)).toEqual({ chains: 0, passes: 0, boundaries: 0, traces: 0, originals: 0 });
    expect(await countsOf("recent")).toEqual({ chains: 1, passes: 3, boundaries: 1, traces: 1, originals: 1 });
    expect(await getOverviewFigures(null)).toEqual(before);
    expect((await getOldestActivity())?.getTime()).toBeGreaterThan(now + 59 * DAY);

    // Nothing more is due at the same moment; seen from a day earlier nothing was.
    expect(await deleteExpiredChains({ now: clock, days: 30 })).toMatchObject({ chains: 0, complete: true });
  });

  it("a class's policy keeps its chains for days of its own; other classes follow the server-wide days", async () => {
    const now = Date.now();
    await seedChain("short-1", 2, new Date(now), "short-lived");
    await seedChain("long-1", 2, new Date(now), "long-lived");
    await seedChain("plain-1", 2, new Date(now));
    const floor = { min_size_bytes: 100, min_semantic_density: 0.2, max_pass_number: 9, required_fields: [] };
    await updatePolicy("short-lived", { ...floor, retention_days: 5 });
    await updatePolicy("long-lived", { ...floor, retention_days: 100 });
    expect(await getClassRetention()).toEqual(
      new Map([
        ["long-lived", 100],
        ["short-lived", 5],
      ]),
    );
    const at = (days: number) => new Date(now + days * DAY);
    const alive = async () =>
      (await Promise.all(["short-1", "long-1", "plain-1"].map(async (id) => [id, (await countsOf(id)).chains])))
        .filter(([, n]) => n === 1)
        .map(([id]) => id);

    // Without FLOORLINE_RETENTION_DAYS, only classes with days of their own lose chains.
    expect(await deleteExpiredChains({ now: at(4), days: null })).toMatchObject({ chains: 0, complete: true });
    expect(await deleteExpiredChains({ now: at(10), days: null })).toMatchObject({ chains: 1, passes: 2 });
    expect(await alive()).toEqual(["long-1", "plain-1"]);
    // The server-wide 30 days apply to the rest, not to a class that keeps 100.
    expect(await deleteExpiredChains({ now: at(20), days: 30 })).toMatchObject({ chains: 0 });
    expect(await deleteExpiredChains({ now: at(40), days: 30 })).toMatchObject({ chains: 1 });
    expect(await alive()).toEqual(["long-1"]);
    // The latest version decides: a save without the days keeps them, null hands the class back.
    await updatePolicy("long-lived", { ...floor, min_semantic_density: 0.3 });
    expect(await deleteExpiredChains({ now: at(40), days: 30 })).toMatchObject({ chains: 0 });
    await updatePolicy("long-lived", { ...floor, retention_days: null });
    expect(await deleteExpiredChains({ now: at(40), days: 30 })).toMatchObject({ chains: 1 });
    expect(await alive()).toEqual([]);
  });

  it("runs as a worker on the clock it is given, and stops", async () => {
    const now = Date.now();
    await seedChain("worker-chain", 2, new Date(now));
    const errors: unknown[] = [];
    const worker = startRetentionWorker({
      days: 1,
      intervalMs: 50,
      now: () => new Date(now + 400 * DAY),
      onError: (e) => errors.push(e),
    });
    const deadline = Date.now() + 10_000;
    while ((await countsOf("worker-chain")).chains > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await worker.stop();
    expect(errors).toEqual([]);
    expect(await countsOf("worker-chain")).toEqual({ chains: 0, passes: 0, boundaries: 0, traces: 0, originals: 0 });
  });
});

// Last: it moves the clock far enough to take every chain the suites above left.
describe("retention leaves nothing behind", () => {
  it("empties every table with a chain_id of a deleted chain, trace rejections included", async () => {
    const now = Date.now();
    await seedChain("gone-1", 2, new Date(now));
    // A trace refused for a conclusion without a receipt keeps the refused node's content.
    await expect(
      storeTrace(
        traceSubmissionSchema.parse({
          trace_id: "refused-gone-1",
          chain_id: "gone-1",
          nodes: [{ node_id: "n1", node_type: "VERIFIED_CONCLUSION", content: "secret finding" }],
        }),
      ),
    ).rejects.toThrow();
    // One whose chain never stored a pass: no chain row leads retention to it.
    await expect(
      storeTrace(
        traceSubmissionSchema.parse({
          trace_id: "refused-orphan",
          chain_id: "never-stored",
          nodes: [{ node_id: "n1", node_type: "VERIFIED_CONCLUSION", content: "another finding" }],
        }),
      ),
    ).rejects.toThrow();
    // A successor of gone-1 that walked into its ancestor's wall: the finding is the trace's.
    await storeTrace(
      traceSubmissionSchema.parse({
        trace_id: "wall-ancestor",
        nodes: [{ node_id: "n1", node_type: "FALSIFIED_PATH", content: "retry it", verification_receipt: "failed" }],
      }),
    );
    const successor = await storeTrace(
      traceSubmissionSchema.parse({
        trace_id: "wall-successor-gone-1",
        chain_id: "gone-1",
        parent_trace_id: "wall-ancestor",
        nodes: [{ node_id: "n1", node_type: "EXPLORATORY_CHATTER", content: "retry it" }],
      }),
    );
    expect(successor.trace.findings).toHaveLength(1);
    const tables = await tablesWithChainId();
    expect(tables).toContain("trace_rejections");
    const before = Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await rowsOfChain(t, "gone-1")])));
    expect(before.trace_rejections, JSON.stringify(before)).toBe(1);
    await deleteExpiredChains({ now: new Date(now + 40 * DAY), days: 30 });
    const after = Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await rowsOfChain(t, "gone-1")])));
    expect(after).toEqual(Object.fromEntries(tables.map((t) => [t, 0])));
    expect(await rowsOfChain("trace_rejections", "never-stored")).toBe(0);
    const findings = await queryRows(
      await getDb(),
      sql`select count(*) as n from trace_findings where trace_id = 'wall-successor-gone-1'`,
      { n: col.int },
    );
    expect(onlyRow(findings).n).toBe(0);
  });
});
