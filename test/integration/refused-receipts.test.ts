// Refused receipts (docs/ingest.md, "Refused receipts"): a 409 or 422 of POST /api/v1/passes
// stores nothing of the receipt, but what was refused and why is kept by the chain it names,
// bounded per request and per chain, for the chain page.
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { listRefusedReceipts, REFUSED_PER_CHAIN, REFUSED_PER_REQUEST } from "@/db/queries/refused-receipts";
import { getChainSummary } from "@/db/queries/chains";
import { setUpTestDatabase } from "../support/database";
import { post } from "./api-helpers";

setUpTestDatabase();

const send = (body: unknown) => post(postPasses, "/api/v1/passes", body);
const receipt = (chainId: string, passId: string, extra: Record<string, unknown> = {}) => ({
  chain_id: chainId,
  pass_id: passId,
  pass_number: 1,
  current_content_hash: "h1",
  current_size_bytes: 1000,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.8,
  ...extra,
});

describe("refused receipts", () => {
  it("keeps a misspelt field's 422 by its chain, with the field, and makes no chain", async () => {
    const answer = await send(receipt("refused-typo", "refused-typo.p1", { content_clas: "json" }));
    expect(answer.status).toBe(422);
    const refused = await listRefusedReceipts("refused-typo");
    expect(refused.total).toBe(1);
    expect(refused.items[0]).toMatchObject({
      pass_id: "refused-typo.p1",
      pass_number: 1,
      status: 422,
      code: "validation_failed",
    });
    expect(refused.items[0]?.issue).toContain("content_clas");
    expect(await getChainSummary("refused-typo")).toBeNull();
  });

  it("keeps a receipt refused for a NUL in its pass id, the NUL shown as U+FFFD", async () => {
    const answer = await send(receipt("refused-nul", "refused\u0000nul.p1"));
    expect(answer.status).toBe(422);
    const refused = await listRefusedReceipts("refused-nul");
    expect(refused.items).toEqual([expect.objectContaining({ pass_id: "refused\ufffdnul.p1", status: 422 })]);
    // A chain id with a NUL names no chain: nothing is kept for it, and nothing fails.
    expect((await send(receipt("refused\u0000chain", "p1"))).status).toBe(422);
  });

  it("keeps a conflicting retry's 409 beside the pass that stays as it was", async () => {
    expect((await send(receipt("refused-retry", "refused-retry.p1"))).status).toBe(201);
    const again = await send(receipt("refused-retry", "refused-retry.p1", { current_size_bytes: 900 }));
    expect(again.status).toBe(409);
    const refused = await listRefusedReceipts("refused-retry");
    expect(refused.items).toEqual([expect.objectContaining({ status: 409, code: "idempotency_conflict" })]);
    expect((await getChainSummary("refused-retry"))?.pass_count).toBe(1);
    // An identical retry is no refusal.
    expect((await send(receipt("refused-retry", "refused-retry.p1"))).status).toBe(200);
    expect((await listRefusedReceipts("refused-retry")).total).toBe(1);
  });

  it("keeps a refused batch's receipts each by its chain, the bad one with its issue, at most a few per request", async () => {
    const receipts = Array.from({ length: 30 }, (_, i) =>
      receipt(`refused-batch-${i}`, `refused-batch-${i}.p1`, i === 1 ? { semantic_density_score: 7 } : {}),
    );
    expect((await send({ receipts })).status).toBe(422);
    const named = await Promise.all(receipts.map((r) => listRefusedReceipts(r.chain_id)));
    expect(named.filter((r) => r.total === 1)).toHaveLength(REFUSED_PER_REQUEST);
    expect(named[1]?.items[0]?.issue).toMatch(/^receipts\.1\.semantic_density_score: /);
    expect(named[0]?.items[0]?.issue).toBeNull();
    expect(named[25]?.total).toBe(0);
  });

  it("keeps the latest refusals of a chain only", async () => {
    const bad = (i: number) => receipt("refused-many", `refused-many.p${i}`, { pass_number: i, content_clas: "x" });
    const requests = Math.ceil((REFUSED_PER_CHAIN + 10) / REFUSED_PER_REQUEST);
    for (let r = 0; r < requests; r++) {
      const receipts = Array.from({ length: REFUSED_PER_REQUEST }, (_, i) => bad(r * REFUSED_PER_REQUEST + i + 1));
      expect((await send({ receipts })).status).toBe(422);
    }
    const refused = await listRefusedReceipts("refused-many", 5);
    expect(refused.total).toBe(REFUSED_PER_CHAIN);
    expect(refused.items[0]?.pass_number).toBe(requests * REFUSED_PER_REQUEST);
  });

  it("keeps nothing of what never parsed far enough to name a chain", async () => {
    expect((await send({ receipts: [{ pass_id: "no-chain" }, "x", 4] })).status).toBe(422);
    expect((await send(receipt("", "empty.p1"))).status).toBe(422);
    expect((await listRefusedReceipts("")).total).toBe(0);
  });
});
