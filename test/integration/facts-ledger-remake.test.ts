// A facts ledger dropped and made again inside one batch (db/ingest/fact-ledger.ts, createLedger):
// on both databases, a chain whose passes change list mid-request (their content classes read
// the source in other formats) keeps the facts rows that the same passes sent one request each
// leave.
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { listSourceFacts } from "@/lib/measure/fact-ledger";
import { call, contentReceipt, post } from "./api-helpers";
import { ledgerRows } from "./ledger-rows";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const TEXT =
  "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB, a --dry-run flag for migrate and Postgres 17 support. Fixes #4412 and #4398; /v1/export is removed.";
// Read as text, the source is one opaque word; decoded (the default class, format any), the
// release notes' facts: the two classes' passes are measured under two lists.
const SOURCE = Buffer.from(TEXT).toString("base64");
const LOSSY = "Release 3.9.0 adds Parquet export up to 4 GB.";
const AS_TEXT = "fl-remake-text";

const passes = async (...receipts: unknown[]) => {
  const answer = await post(postPasses, "/api/v1/passes", { receipts });
  expect(answer.status, answer.text).toBe(201);
};

// Passes 1-2 under the text list, then 3-6 under the decoded one: restated in full, lost,
// restored, lost again.
const receipts = (chainId: string) => [
  contentReceipt(chainId, 1, SOURCE, { input_content: SOURCE, content_class: AS_TEXT }),
  contentReceipt(chainId, 2, LOSSY, { content_class: AS_TEXT }),
  contentReceipt(chainId, 3, TEXT),
  contentReceipt(chainId, 4, LOSSY),
  contentReceipt(chainId, 5, TEXT),
  contentReceipt(chainId, 6, LOSSY),
];

describe("a facts ledger made again within a batch", () => {
  it("holds the facts rows that one request per pass leaves", async () => {
    const policy = await call(
      putPolicy,
      jsonRequest(`/api/v1/policies/${AS_TEXT}`, {
        method: "PUT",
        body: { min_size_bytes: 0, min_semantic_density: 0.3, max_pass_number: 10, format: "text" },
      }),
      params({ content_class: AS_TEXT }),
    );
    expect(policy.status, policy.text).toBeLessThan(300);
    const asText = listSourceFacts(SOURCE, "text");
    const decoded = listSourceFacts(SOURCE, "any");
    expect(asText.digest).not.toBe(decoded.digest);

    // One by one, pass 3 (which brings no list: the chain has a ledger) drops the ledger and
    // pass 4 makes it again; in one request, pass 3 brings the list and makes it itself.
    for (const receipt of receipts("fl-remake-one")) await passes(receipt);
    await passes(...receipts("fl-remake-together"));

    const oneByOne = await ledgerRows("fl-remake-one");
    const together = await ledgerRows("fl-remake-together");
    expect(oneByOne.facts.map((f) => f.fact)).toEqual(decoded.facts.map((f) => f.fact));
    expect(new Set(oneByOne.facts.map((f) => f.fate))).toEqual(new Set(["retained", "lost"]));
    expect(oneByOne.facts.some((f) => f.first_lost_pass === 4 && f.restored_at_pass === 5)).toBe(true);
    expect(together.facts).toEqual(oneByOne.facts);
    expect(oneByOne.ledger).toEqual([
      { digest: decoded.digest, in_source: decoded.inSource, last_pass: 6, passes_folded: 3 },
    ]);
    expect(together.ledger).toEqual([{ ...oneByOne.ledger[0], passes_folded: 4 }]);
  });
});
