// The facts ledger folds a batch's passes together (db/ingest/fact-ledger.ts, foldRuns): on both
// databases, a chain's passes sent in one request leave the same rows as the same passes sent
// one request each, for sequences that lose, restore, lose again and point at an original.
import { describe, expect, it } from "vitest";
import { POST as postOriginal } from "@/app/api/v1/originals/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { contentReceipt, post } from "./api-helpers";
import { ledgerRows } from "./ledger-rows";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const SOURCE =
  "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB, a --dry-run flag for migrate and Postgres 17 support. Fixes #4412 and #4398; /v1/export is removed.";
const LOSSY = "Release 3.9.0 adds Parquet export up to 4 GB.";
const OTHER = "Postgres 17 support, a --dry-run flag for migrate; /v1/export is removed.";
const VOID = "The document discusses various topics.";

const passes = async (...receipts: unknown[]) => {
  const answer = await post(postPasses, "/api/v1/passes", { receipts });
  expect(answer.status, answer.text).toBe(201);
};

describe("folding a batch's passes together", () => {
  it("leaves the rows that folding them one by one leaves", async () => {
    const stored = await post(postOriginal, "/api/v1/originals", { original: SOURCE });
    expect(stored.status, stored.text).toBe(201);
    const key = (stored.body.hash as string).slice(0, 24);
    const marked = `Release 3.9.0 notes. [7 items compressed to 1. Retrieve more: hash=${key}]`;
    // Lost, restored twice, lost, restored, recoverable, partly restored, lost again, restored
    // in full, then part lost.
    const contents = [SOURCE, LOSSY, SOURCE, SOURCE, LOSSY, SOURCE, marked, OTHER, VOID, LOSSY, SOURCE, OTHER];
    const receipts = (chainId: string) =>
      contents.map((content, i) =>
        contentReceipt(chainId, i + 1, content, i === 0 ? { input_content: SOURCE, cache_original: false } : {}),
      );

    // One request per pass, and requests of several passes that start with facts already lost,
    // which all their passes state (3-4), or their first restores and a later one loses again
    // (6-8), or their first loses too (9-12): the same rows after each request.
    const single = receipts("fold-one-by-one");
    const split = receipts("fold-split");
    let sent = 0;
    for (const upTo of [2, 4, 5, 8, contents.length]) {
      for (const receipt of single.slice(sent, upTo)) await passes(receipt);
      await passes(...split.slice(sent, upTo));
      sent = upTo;
      expect(await ledgerRows("fold-split"), `after pass ${upTo}`).toEqual(await ledgerRows("fold-one-by-one"));
    }
    await passes(...receipts("fold-together"));

    const oneByOne = await ledgerRows("fold-one-by-one");
    expect(oneByOne.ledger).toMatchObject([{ last_pass: contents.length, passes_folded: contents.length }]);
    const fates = new Set(oneByOne.facts.map((f) => f.fate));
    expect(fates.has("restored")).toBe(true);
    expect(fates.has("lost")).toBe(true);
    expect(oneByOne.facts.some((f) => f.restored_at_pass !== null && f.fate === "lost")).toBe(true);
    expect(await ledgerRows("fold-together")).toEqual(oneByOne);
  });

  it("keeps a fact recoverable from the original its last pass names", async () => {
    const stored = await post(postOriginal, "/api/v1/originals", { original: SOURCE });
    const key = (stored.body.hash as string).slice(0, 24);
    const marked = `Release 3.9.0 notes. [7 items compressed to 1. Retrieve more: hash=${key}]`;
    const contents = [SOURCE, LOSSY, marked];
    const receipts = (chainId: string) =>
      contents.map((content, i) => contentReceipt(chainId, i + 1, content, i === 0 ? { input_content: SOURCE } : {}));
    for (const receipt of receipts("fold-marker-one")) await passes(receipt);
    await passes(...receipts("fold-marker-together"));
    const oneByOne = await ledgerRows("fold-marker-one");
    expect(oneByOne.facts.some((f) => f.fate === "recoverable" && f.recoverable_from === key)).toBe(true);
    expect(await ledgerRows("fold-marker-together")).toEqual(oneByOne);
  });
});
