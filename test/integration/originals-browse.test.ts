// Browsing the store (filters, sorts, keyset pages, no content), per-hour counters, and
// the links between originals and the chains whose passes produced them.
import { beforeAll, describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/originals/route";
import * as boundariesRoute from "@/app/api/v1/boundaries/route";
import * as passesRoute from "@/app/api/v1/passes/route";
import { listOriginalLinksByHash, listPassesForOriginal } from "@/db/queries/originals/links";
import { getChainOriginalLinks } from "../support/chain-original-links";
import { getOriginalForView, getOriginalText } from "@/db/queries/originals/view";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { storeOriginal } from "@/db/queries/originals/store";
import { sha256Hex } from "@/lib/guard/hash";
import type { OriginalsConfig } from "@/lib/originals/rules";
import { call, expectError, post } from "./api-helpers";
import { jsonRequest, setUpTestDatabase } from "../support/database";
import { at } from "../support/at";

setUpTestDatabase();

const config: OriginalsConfig = { maxBytes: 1_000_000, defaultTtlSeconds: null };
const minute = (m: number) => new Date(Date.UTC(2026, 2, 1, 9, m));

interface Item {
  hash: string;
  status: string;
  size_bytes: number;
  tool_name: string | null;
  retrieval_count: number;
}

const list = async (query: string) => {
  const answer = await call(collection.GET, jsonRequest(`/api/v1/originals${query}`));
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { items: Item[]; next_cursor: string | null };
};

async function pageThrough(query: string): Promise<Item[]> {
  const seen: Item[] = [];
  let cursor: string | null = null;
  do {
    const page = await list(`${query}${cursor ? `&cursor=${cursor}` : ""}`);
    seen.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return seen;
}

const texts = Array.from({ length: 7 }, (_, i) => `entry ${i} ` + "·".repeat(i * 40));

beforeAll(async () => {
  for (const [i, original] of texts.entries()) {
    await storeOriginal(
      {
        original,
        tool_name: i % 2 ? "fs.read" : "http.get",
        chain_id: i < 3 ? "chain-browse" : null,
        ttl_seconds: i === 6 ? 60 : null,
      },
      { now: minute(i), config },
    );
  }
  // Entry 1 is retrieved twice, entry 2 once.
  await retrieveOriginal(sha256Hex(at(texts, 1)), { now: minute(10) });
  await retrieveOriginal(sha256Hex(at(texts, 1)), { now: minute(11) });
  await retrieveOriginal(sha256Hex(at(texts, 2)), { now: minute(12) });
});

describe("GET /api/v1/originals", () => {
  it("lists newest first without the content, and pages by keyset across every row exactly once", async () => {
    const first = await list("?limit=3");
    expect(first.items).toHaveLength(3);
    expect(first.items[0]?.hash).toBe(sha256Hex(at(texts, 6)));
    for (const item of first.items) {
      expect(item).not.toHaveProperty("original");
      expect(item).not.toHaveProperty("compressed");
    }
    const all = await pageThrough("?limit=2");
    expect(all.map((i) => i.hash)).toEqual([...texts].reverse().map(sha256Hex));
  });

  it("sorts by size, retrievals and last retrieval, both ways, with stable pages", async () => {
    const bySizeAsc = await pageThrough("?sort=size&order=asc&limit=3");
    expect(bySizeAsc.map((i) => i.size_bytes)).toEqual([...bySizeAsc.map((i) => i.size_bytes)].sort((a, b) => a - b));
    expect(bySizeAsc).toHaveLength(7);
    const byRetrievals = await pageThrough("?sort=retrievals&order=desc&limit=2");
    expect(byRetrievals.slice(0, 2).map((i) => [i.hash, i.retrieval_count])).toEqual([
      [sha256Hex(at(texts, 1)), 2],
      [sha256Hex(at(texts, 2)), 1],
    ]);
    expect(byRetrievals).toHaveLength(7);
    const byLastRetrieved = await pageThrough("?sort=last_retrieved&order=desc&limit=2");
    expect(byLastRetrieved.slice(0, 2).map((i) => i.hash)).toEqual([sha256Hex(at(texts, 2)), sha256Hex(at(texts, 1))]);
    expect(new Set(byLastRetrieved.map((i) => i.hash)).size).toBe(7);
  });

  it("filters on the server by tool, chain, status and hash prefix", async () => {
    expect((await pageThrough("?tool_name=fs.read")).map((i) => i.hash).sort()).toEqual(
      [1, 3, 5].map((i) => sha256Hex(at(texts, i))).sort(),
    );
    expect((await pageThrough("?chain_id=chain-browse")).map((i) => i.hash).sort()).toEqual(
      [0, 1, 2].map((i) => sha256Hex(at(texts, i))).sort(),
    );
    // Entry 6 had a 60 s TTL from 09:06: by now it reads as expired, swept or not.
    expect((await pageThrough("?status=expired")).map((i) => i.hash)).toEqual([sha256Hex(at(texts, 6))]);
    expect((await pageThrough("?status=gone")).map((i) => i.hash)).toEqual([sha256Hex(at(texts, 6))]);
    expect(await pageThrough("?status=live")).toHaveLength(6);
    const prefix = sha256Hex(at(texts, 4)).slice(0, 6);
    expect((await pageThrough(`?q=${prefix}`)).map((i) => i.hash)).toContain(sha256Hex(at(texts, 4)));
    expect((await pageThrough("?q=fs.r")).length).toBe(3);
  });

  it("refuses bad query parameters and foreign cursors with 422", async () => {
    expectError(await call(collection.GET, jsonRequest("/api/v1/originals?sort=colour")), 422, "invalid_query");
    expectError(await call(collection.GET, jsonRequest("/api/v1/originals?limit=501")), 422, "invalid_query");
    expectError(await call(collection.GET, jsonRequest("/api/v1/originals?cursor=bm9wZQ")), 422, "invalid_query");
  });

  it("refuses a well-formed cursor of another sort with 422, not a failed cast", async () => {
    const { next_cursor } = await list("?limit=2");
    expect(next_cursor).not.toBeNull();
    for (const sort of ["size", "retrievals"]) {
      const answer = await call(collection.GET, jsonRequest(`/api/v1/originals?sort=${sort}&cursor=${next_cursor}`));
      expectError(answer, 422, "invalid_query");
    }
    const bySize = await list("?sort=size&limit=2");
    const answer = await call(
      collection.GET,
      jsonRequest(`/api/v1/originals?sort=created&cursor=${bySize.next_cursor}`),
    );
    expectError(answer, 422, "invalid_query");
  });
});

describe("per-hour counters", () => {
  it("puts each event in the UTC hour it happened and sums hours into totals", async () => {
    const hourA = new Date(Date.UTC(2026, 2, 2, 7, 59, 59));
    const hourB = new Date(Date.UTC(2026, 2, 2, 8, 0, 0));
    const { result } = await storeOriginal(
      { original: "hourly", original_tokens: 500, compressed_tokens: 100 },
      { now: hourA, config },
    );
    await retrieveOriginal(result.hash, { now: hourB });
    await retrieveOriginal(sha256Hex("never here"), { now: hourB }).catch(() => undefined);
    const stats = await getOriginalStats(2, { now: hourB, config });
    expect(stats.hourly.map((h) => h.hour)).toEqual(["2026-03-02T07:00:00.000Z", "2026-03-02T08:00:00.000Z"]);
    expect(stats.hourly[0]).toMatchObject({
      stored: 1,
      retrieved: 0,
      tokens: { saved_gross: 400, respent: 0, net: 400 },
    });
    expect(stats.hourly[1]).toMatchObject({
      stored: 0,
      retrieved: 1,
      misses: { unknown: 1, total: 1 },
      tokens: { saved_gross: 0, respent: 500, net: -500 },
    });
    expect(stats.hourly[1]?.hit_rate).toBe(0.5);
    expect(stats.totals.tokens.net).toBe(stats.totals.tokens.saved_gross - stats.totals.tokens.respent);
    expect(stats.totals.retrieved).toBe(4);
  });
});

describe("views for the dashboard", () => {
  it("resolve a prefix and page through the text without counting a retrieval or refreshing recency", async () => {
    const long = "0123456789".repeat(1000);
    const { result } = await storeOriginal({ original: long, compressed: "0123…" }, { config });
    const before = await getOriginalStats(1, { config });
    const view = await getOriginalForView(result.hash.slice(0, 12));
    expect(view.kind).toBe("found");
    if (view.kind !== "found") return;
    expect(view.original).toMatchObject({
      hash: result.hash,
      original_chars: 10_000,
      compressed_chars: 5,
      retrieval_count: 0,
    });
    expect(await getOriginalText(result.hash, "original", { offset: 9_995, length: 100 })).toEqual({
      text: "56789",
      total_chars: 10_000,
      offset: 9_995,
      content_type: "text/plain",
    });
    expect((await getOriginalText(result.hash, "compressed", null))!.text).toBe("0123…");
    const after = await getOriginalStats(1, { config });
    expect(after.totals.retrieved).toBe(before.totals.retrieved);
    expect(await getOriginalForView(sha256Hex("nothing"))).toEqual({ kind: "unknown" });
  });
});

describe("links with chains", () => {
  const source = JSON.stringify({ rows: Array.from({ length: 50 }, (_, i) => ({ id: i, sku: `S${i}` })) });
  const pass1 = JSON.stringify({ rows: Array.from({ length: 10 }, (_, i) => ({ id: i, sku: `S${i}` })) });
  const pass2 = JSON.stringify({ rows: 10 });
  const chainId = "chain-linked";

  beforeAll(async () => {
    const receipt = (n: number, input: string, output: string) => ({
      chain_id: chainId,
      pass_id: `${chainId}.p${n}`,
      pass_number: n,
      input_content_hash: sha256Hex(input),
      current_content_hash: sha256Hex(output),
      current_size_bytes: output.length,
      is_parseable: true,
      schema_valid: n === 1,
      semantic_density_score: n === 1 ? 0.8 : 0.2,
    });
    const passes = await post(passesRoute.POST, "/api/v1/passes", {
      receipts: [receipt(1, source, pass1), receipt(2, pass1, pass2)],
    });
    expect(passes.status, passes.text).toBe(201);
    const boundary = await post(boundariesRoute.POST, "/api/v1/boundaries", {
      chain_id: chainId,
      pass_number: 2,
      strategy: "restore",
      reason: "pass 2 lost the skus",
      restore_pass_id: `${chainId}.p1`,
    });
    expect(boundary.status, boundary.text).toBe(201);
    // Pass 1's original (the source) and pass 2's original (pass 1's output) are both cached.
    await storeOriginal(
      { original: source, compressed: pass1, chain_id: chainId, pass_id: `${chainId}.p1` },
      { config },
    );
    await storeOriginal(
      { original: pass1, compressed: pass2, chain_id: chainId, pass_id: `${chainId}.p2` },
      { config },
    );
  });

  it("tells which content hashes have a stored original, and its status", async () => {
    const links = await listOriginalLinksByHash([
      sha256Hex(source),
      sha256Hex(pass1).slice(0, 16),
      sha256Hex(pass2),
      "",
      null,
      "not-hex",
    ]);
    expect([...links.keys()].sort()).toEqual([sha256Hex(source), sha256Hex(pass1).slice(0, 16)].sort());
    expect(links.get(sha256Hex(source))).toEqual({
      hash: sha256Hex(source),
      status: "live",
      size_bytes: Buffer.byteLength(source),
      href: `/originals/${sha256Hex(source)}`,
    });
  });

  it("gives the chain page its pass links and the original a restore brings back", async () => {
    const links = await getChainOriginalLinks(chainId);
    expect(links.passes[`${chainId}.p1`]?.input?.hash).toBe(sha256Hex(source));
    expect(links.passes[`${chainId}.p1`]?.output?.hash).toBe(sha256Hex(pass1));
    expect(links.passes[`${chainId}.p2`]?.input?.hash).toBe(sha256Hex(pass1));
    expect(links.passes[`${chainId}.p2`]?.output).toBeNull();
    // Restoring pass 1 rolls back to pass 1's output.
    expect(links.restores[`${chainId}.p1`]).toMatchObject({
      hash: sha256Hex(pass1),
      match: "output_hash",
      href: `/originals/${sha256Hex(pass1)}`,
    });
  });

  it("lists the passes whose input or output is an original", async () => {
    expect(await listPassesForOriginal(sha256Hex(pass1))).toEqual([
      { chain_id: chainId, pass_id: `${chainId}.p1`, pass_number: 1, relation: "output", verdict: expect.any(String) },
      { chain_id: chainId, pass_id: `${chainId}.p2`, pass_number: 2, relation: "input", verdict: expect.any(String) },
    ]);
  });
});
