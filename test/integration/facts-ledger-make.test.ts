// The facts ledgers a batch makes (db/ingest/fact-ledger.ts, makeLedgers): on both databases,
// the ledgers of several chains made by one request, from each chain's first pass, hold the
// same rows as the same chains sent one request each.
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { contentReceipt, post } from "./api-helpers";
import { ledgerRows } from "./ledger-rows";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const SOURCES = [
  "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB, a --dry-run flag for migrate and Postgres 17 support. Fixes #4412 and #4398; /v1/export is removed.",
  "2026-11-30T10:00:01Z ERROR db timeout after 8818 ms on query=get_orders shard=3\n2026-11-30T10:00:02Z INFO api request id=r7 path=/orders/273 status=200 ms=74",
  "Node n100201 listens on port 20201. Node n100202 listens on port 20202. Disk /dev/sda1 is 91% full.",
];
const CONTENTS = (source: string) => [source.slice(0, 60), source, "Nothing of note.", source.slice(40)];

const passes = async (...receipts: unknown[]) => {
  const answer = await post(postPasses, "/api/v1/passes", { receipts });
  expect(answer.status, answer.text).toBe(201);
};

const receipts = (prefix: string, i: number) =>
  CONTENTS(SOURCES[i] as string).map((content, k) =>
    contentReceipt(`${prefix}-${i}`, k + 1, content, k === 0 ? { input_content: SOURCES[i] } : {}),
  );

describe("the facts ledgers of a batch", () => {
  it("are made for several chains at once with the rows one request per chain makes", async () => {
    for (const i of SOURCES.keys()) await passes(...receipts("make-apart", i));
    // Interleaved, as a batch of many chains comes: each chain's first pass makes its ledger.
    const together = SOURCES.map((_, i) => receipts("make-together", i));
    await passes(...CONTENTS("").flatMap((_, k) => together.map((chain) => chain[k])));
    for (const i of SOURCES.keys()) {
      const apart = await ledgerRows(`make-apart-${i}`);
      expect(apart.ledger).toHaveLength(1);
      expect(apart.ledger[0]).toMatchObject({ last_pass: CONTENTS("").length, passes_folded: CONTENTS("").length });
      expect(apart.facts.length).toBeGreaterThan(3);
      expect(await ledgerRows(`make-together-${i}`), `chain ${i}`).toEqual(apart);
    }
  });
});
