// Migration 0026 counts the canary_lost findings of chains stored before migration 0024 from
// their stored passes. Its count must be what the summariser's judgement gives today
// (db/queries/canaries.ts judgeCanaryFindings over lib/canaries/survival.ts canaryFindings):
// chains are made through the API, their judged counts kept, then taken back to how 0024
// left older chains (canary_finding_count 0, integrity_count without them) and the backfill run.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { getDb, summariesSettled } from "@/db/index";
import { col, queryRows } from "@/db/sql";
import { type Canary, plantCanaries } from "@/lib/canaries/canaries";
import { call, contentReceipt, post } from "./api-helpers";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const LOG = "2026-11-30T10:00:07Z INFO checkout started\n2026-11-30T10:00:12Z ERROR payment failed: ECONNRESET\n";
const { content: planted, canaries } = plantCanaries(LOG, { count: 4, seed: "cb" });
const [a, b, c, d] = canaries as [Canary, Canary, Canary, Canary];
const later = plantCanaries(LOG, { count: 2, seed: "cb", start: 4 }).canaries as [Canary, Canary];
const keeping = (...kept: Canary[]) => `summary: ${kept.map((k) => k.text).join(" ")}`;

async function passes(receipts: unknown[]): Promise<void> {
  const answer = await post(postPasses, "/api/v1/passes", { receipts });
  expect(answer.status, answer.text).toBe(201);
}

async function floor(contentClass: string, min: number): Promise<void> {
  const put = await call(
    putPolicy,
    jsonRequest(`/api/v1/policies/${contentClass}`, {
      method: "PUT",
      body: { min_size_bytes: 1, min_semantic_density: 0.01, max_pass_number: 50, min_canary_retention: min },
    }),
    params({ content_class: contentClass }),
  );
  expect(put.status, put.text).toBe(201);
}

const COUNTS = sql`select chain_id, canary_finding_count, integrity_count from chains order by chain_id`;
async function counts(): Promise<{ chain_id: string; canary_finding_count: number; integrity_count: number }[]> {
  await summariesSettled();
  return queryRows(await getDb(), COUNTS, {
    chain_id: col.text,
    canary_finding_count: col.int,
    integrity_count: col.int,
  });
}

/** Runs migration 0026's statements, comments left out. */
async function runBackfill(): Promise<void> {
  const folder = path.join(process.cwd(), "drizzle");
  const file = readdirSync(folder).find((f) => f.startsWith("0026_") && f.endsWith(".sql"));
  if (!file) throw new Error("no migration 0026 in drizzle/");
  const statements = readFileSync(path.join(folder, file), "utf8")
    .split("--> statement-breakpoint")
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter((s) => s !== "");
  const db = await getDb();
  for (const statement of statements) await db.execute(sql.raw(statement));
}

describe("migration 0026: canary findings of chains stored before 0024", () => {
  it("counts them from the stored passes as the summariser judges them", async () => {
    await floor("cb-floor", 0.5);
    // Lost at the planting pass, lost on an opaque pass, a pass without survival, a restore.
    await passes([
      contentReceipt("cb-restore", 1, keeping(a, b, c), { canaries, input_content: planted }),
      contentReceipt("cb-restore", 2, null, { canary_check: { surviving: [a.id], checked_text_bytes: 40 } }),
      contentReceipt("cb-restore", 3, null),
      contentReceipt("cb-restore", 4, keeping(a, b, c, d)),
      // Lost again after the restore brought it back.
      contentReceipt("cb-restore", 5, keeping(a, c, d)),
    ]);
    // Below the class's floor twice, with a pass back above it between.
    await passes([
      contentReceipt("cb-floor", 1, keeping(a, b, c, d), { canaries, content_class: "cb-floor" }),
      contentReceipt("cb-floor", 2, keeping(a), { content_class: "cb-floor" }),
      contentReceipt("cb-floor", 3, keeping(a), { content_class: "cb-floor" }),
      contentReceipt("cb-floor", 4, keeping(a, b, c, d), { content_class: "cb-floor" }),
      contentReceipt("cb-floor", 5, keeping(b), { content_class: "cb-floor" }),
    ]);
    // A second planting later in the chain, one id planted again (the first planting counts).
    await passes([
      contentReceipt("cb-twice", 1, keeping(a, b, c, d), { canaries }),
      contentReceipt("cb-twice", 2, keeping(a, b), { canaries: [...later, c] }),
      contentReceipt("cb-twice", 3, keeping(a, b, ...later)),
      contentReceipt("cb-twice", 4, keeping(later[0])),
    ]);
    // Passes sent out of order: judged in chain order.
    await passes([contentReceipt("cb-late", 1, keeping(a, b, c, d), { canaries })]);
    await passes([contentReceipt("cb-late", 3, keeping(a))]);
    await passes([contentReceipt("cb-late", 2, keeping(a, b, c))]);
    // No canaries at all.
    await passes([contentReceipt("cb-none", 1, "plain"), contentReceipt("cb-none", 2, "plainer")]);

    const judged = await counts();
    const byChain = Object.fromEntries(judged.map((r) => [r.chain_id, r.canary_finding_count]));
    expect(byChain).toEqual({ "cb-floor": 8, "cb-late": 3, "cb-none": 0, "cb-restore": 4, "cb-twice": 7 });

    // As 0024 left a chain stored before it.
    await (await getDb()).execute(
      sql`update chains set integrity_count = integrity_count - canary_finding_count, canary_finding_count = 0`,
    );
    expect((await counts()).every((r) => r.canary_finding_count === 0)).toBe(true);
    await runBackfill();
    expect(await counts()).toEqual(judged);
    // Run again (a chain judged since 0024 already has its count): nothing changes.
    await runBackfill();
    expect(await counts()).toEqual(judged);
  });
});
