// The facts ledger (docs/facts.md) through the API, on both databases: each fact of a chain's
// source with the pass where it was first lost, the restore that brought it back, the original
// a marker names that states it, a late pass left out, and `GET /api/v1/chains/{id}/facts`'s
// filters, pages and bad input.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as getFacts } from "@/app/api/v1/chains/[chain_id]/facts/route";
import { POST as postOriginal } from "@/app/api/v1/originals/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { getDb } from "@/db/index";
import { getFactLedger, getFactSeries } from "@/db/queries/chain-facts";
import { col, onlyRow, queryRows } from "@/db/sql";
import { listSourceFacts } from "@/lib/measure/fact-ledger";
import type { ChainFact } from "@/lib/schemas/facts";
import { call, contentReceipt, expectError, post } from "./api-helpers";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const SOURCE =
  "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB, a --dry-run flag for migrate and Postgres 17 support. Fixes #4412 and #4398; /v1/export is removed.";
const LOSSY = "Release 3.9.0 adds Parquet export up to 4 GB.";
const VOID = "The document discusses various topics.";

const passes = async (...receipts: unknown[]) => {
  const answer = await post(postPasses, "/api/v1/passes", { receipts });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.results as { server_checks?: { facts: Record<string, number> } }[];
};
const facts = async (chainId: string, query = "") =>
  call(getFacts, jsonRequest(`/api/v1/chains/${chainId}/facts${query}`), params({ chain_id: chainId }));
/** Every fact of the chain, paging through with a small limit. */
async function allFacts(chainId: string, filter = ""): Promise<ChainFact[]> {
  const out: ChainFact[] = [];
  let cursor: string | null = null;
  do {
    const answer = await facts(chainId, `?limit=3${filter}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(answer.status, answer.text).toBe(200);
    out.push(...answer.body.items);
    cursor = answer.body.next_cursor;
  } while (cursor);
  return out;
}
const byText = (list: readonly ChainFact[]) => new Map(list.map((f) => [f.fact, f]));
const listed = listSourceFacts(SOURCE);
const lostInLossy = ["2026-05-02", "--dry-run", "#4412", "/v1/export"];

describe("the facts ledger", () => {
  it("says where each fact was first lost and which pass brought it back", async () => {
    await passes(
      contentReceipt("fl-restore", 1, SOURCE, { input_content: SOURCE }),
      contentReceipt("fl-restore", 2, LOSSY),
    );
    // A restore, in a later request: the restored content states everything again.
    await passes(contentReceipt("fl-restore", 3, SOURCE));
    const all = await allFacts("fl-restore");
    expect(all.map((f) => f.fact)).toEqual(listed.facts.map((f) => f.fact));
    expect(all.map((f) => f.salience)).toEqual([...all.map((f) => f.salience)].sort((a, b) => b - a));
    const fact = byText(all);
    for (const text of lostInLossy)
      expect(fact.get(text), text).toMatchObject({
        fate: "restored",
        first_lost_pass: 2,
        restored_at_pass: 3,
        recoverable_from: null,
      });
    expect(fact.get("3.9.0")).toMatchObject({ fate: "retained", first_lost_pass: null, restored_at_pass: null });
    const ledger = await getFactLedger("fl-restore");
    expect(ledger).toMatchObject({
      in_source: listed.inSource,
      kept: listed.facts.length,
      passes_folded: 3,
      last_pass: 3,
    });
    // The chart's line: the share of facts each pass states.
    const series = await getFactSeries("fl-restore");
    expect(series.map((p) => p.pass_number)).toEqual([1, 2, 3]);
    expect(series.map((p) => p.surviving)).toEqual([1, expect.any(Number), 1]);
    expect(series[1]?.surviving).toBeLessThan(0.8);

    // Lost again: fate lost, the first loss and the restore kept.
    await passes(contentReceipt("fl-restore", 4, LOSSY));
    const again = byText(await allFacts("fl-restore", "&fate=lost"));
    expect(again.get("#4412")).toMatchObject({ fate: "lost", first_lost_pass: 2, restored_at_pass: 3 });
    expect(again.has("3.9.0")).toBe(false);
  });

  it("leaves out a pass that arrives after a later one was folded", async () => {
    await passes({ ...contentReceipt("fl-restore", 2, SOURCE), pass_id: "fl-restore.late" });
    const ledger = await getFactLedger("fl-restore");
    expect(ledger).toMatchObject({ passes_folded: 4, last_pass: 4 });
    expect(byText(await allFacts("fl-restore")).get("#4412")?.fate).toBe("lost");
  });

  it("names the original a marker points at while the chain does not state a fact, then loses it", async () => {
    const stored = await post(postOriginal, "/api/v1/originals", { original: SOURCE });
    expect(stored.status, stored.text).toBe(201);
    const key = (stored.body.hash as string).slice(0, 24);
    const marked = `Release 3.9.0 notes. [7 items compressed to 1. Retrieve more: hash=${key}]`;
    const results = await passes(
      contentReceipt("fl-marker", 1, SOURCE, { input_content: SOURCE }),
      contentReceipt("fl-marker", 2, marked),
    );
    const measured = results[1]?.server_checks?.facts;
    const recoverable = await allFacts("fl-marker", "&fate=recoverable");
    // The ledger's fates are the measurement's counts.
    expect(recoverable.length).toBe(measured?.recoverable);
    expect(recoverable.length).toBeGreaterThan(0);
    for (const f of recoverable) expect(f).toMatchObject({ recoverable_from: key, first_lost_pass: 2 });
    expect((await allFacts("fl-marker", "&fate=retained")).length).toBe(measured?.retained);

    await passes(contentReceipt("fl-marker", 3, VOID));
    const lost = await allFacts("fl-marker", "&fate=lost");
    expect(lost.length).toBe(listed.facts.length);
    expect(byText(lost).get("#4412")).toMatchObject({ first_lost_pass: 2, recoverable_from: null });
  });

  it("finds facts by a piece of their text, in any case", async () => {
    const found = await allFacts("fl-marker", "&q=V1%2FEXP");
    expect(found.map((f) => f.fact)).toEqual(["/v1/export"]);
    expect(await allFacts("fl-marker", "&q=nothing-like-it")).toEqual([]);
    // An empty filter is no filter, as a search form sends it.
    expect((await allFacts("fl-marker", "&q=&fate=")).length).toBe(listed.facts.length);
  });

  // It goes with the chain's source: facts-ledger-retention.test.ts.
  it("is made once per chain", async () => {
    const db = await getDb();
    const count = async () =>
      onlyRow(
        await queryRows(db, sql`select count(*) as n from chain_facts where chain_id = 'fl-marker'`, { n: col.int }),
      ).n;
    expect(await count()).toBe(listed.facts.length);
  });
});

describe("GET /api/v1/chains/{id}/facts", () => {
  it("answers an empty page for a chain none of whose passes was measured", async () => {
    await passes(contentReceipt("fl-none", 1, null));
    const answer = await facts("fl-none");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ items: [], next_cursor: null });
  });

  it("answers 404 for a chain it does not know", async () => {
    expectError(await facts("fl-nobody"), 404, "not_found");
  });

  it("refuses bad parameters and cursors in the contract's shape", async () => {
    const wrongType = Buffer.from(JSON.stringify(["x"])).toString("base64url");
    const negative = Buffer.from(JSON.stringify([-1])).toString("base64url");
    for (const [query, path] of [
      ["?fate=forgotten", "fate"],
      ["?limit=0", "limit"],
      ["?limit=1e2", "limit"],
      ["?limit=501", "limit"],
      ["?cursor=%%%", "cursor"],
      [`?cursor=${wrongType}`, "cursor"],
      [`?cursor=${negative}`, "cursor"],
      [`?q=${"x".repeat(257)}`, "q"],
    ] as const) {
      const error = expectError(await facts("fl-restore", query), 422, "invalid_query");
      expect(
        error.issues?.some((i) => i.path === path),
        query,
      ).toBe(true);
    }
  });
});
