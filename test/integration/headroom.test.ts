// Headroom-compatible retrieval at the root paths, through the real handlers: the exact
// shapes Headroom's clients read, 12- and 24-hex SHA-256 keys, MD5 and BLAKE3 keys stored
// with hash_algorithm, tool calls in Anthropic's and OpenAI's formats, honest misses, and
// the same counters as the native retrieve.
import { describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/originals/route";
import * as nativeRetrieve from "@/app/api/v1/retrieve/route";
import * as byHash from "@/app/v1/retrieve/[hash]/route";
import * as retrieve from "@/app/v1/retrieve/route";
import * as stats from "@/app/v1/retrieve/stats/route";
import * as toolCall from "@/app/v1/retrieve/tool_call/route";
import * as catchAll from "@/app/v1/[...path]/route";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { storeOriginal } from "@/db/queries/originals/store";
import { sha256Hex } from "@/lib/guard/hash";
import { digestOf, headroomKey } from "@/lib/originals/headroom/keys";
import { pyJsonIndent2 } from "@/lib/originals/headroom/shapes";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, expectError, post } from "./api-helpers";

setUpTestDatabase();

const store = (body: Record<string, unknown>) => post(collection.POST, "/api/v1/originals", body);
const postRetrieve = (body: unknown) => post(retrieve.POST, "/v1/retrieve", body);
const getRetrieve = (key: string) => call(byHash.GET, jsonRequest(`/v1/retrieve/${key}`), params({ hash: key }));
const tool = (body: unknown) => post(toolCall.POST, "/v1/retrieve/tool_call", body);

const rows = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` })));
const RETRIEVE_KEYS = [
  "hash",
  "original_content",
  "original_tokens",
  "original_item_count",
  "compressed_item_count",
  "tool_name",
  "retrieval_count",
];

describe("POST /v1/retrieve and GET /v1/retrieve/{hash}", () => {
  it("answer Headroom's shape for a 24-hex and a 12-hex SHA-256 key, counting each retrieval", async () => {
    const stored = await store({
      original: rows,
      tool_name: "db.query",
      original_items: 200,
      compressed_items: 15,
      original_tokens: 3000,
      compressed_tokens: 300,
    });
    expect(stored.status, stored.text).toBe(201);
    const key24 = headroomKey(rows, "sha256");
    const before = await getOriginalStats();
    const a = await postRetrieve({ hash: key24 });
    expect(a.status, a.text).toBe(200);
    expect(Object.keys(a.body)).toEqual(RETRIEVE_KEYS);
    expect(a.body).toEqual({
      hash: key24,
      original_content: rows,
      original_tokens: 3000,
      original_item_count: 200,
      compressed_item_count: 15,
      tool_name: "db.query",
      retrieval_count: 1,
    });
    const key12 = key24.slice(0, 12);
    const b = await getRetrieve(key12);
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ hash: key12, original_content: rows, retrieval_count: 2 });
    // The native endpoint sees the same entry and the same count.
    const native = await post(nativeRetrieve.POST, "/api/v1/retrieve", { hash: key12 });
    expect(native.body.retrieval_count).toBe(3);
    const after = await getOriginalStats();
    expect(after.totals.retrieved - before.totals.retrieved).toBe(3);
  });

  it("404 with status missing for a key never stored, 400 'hash required' without one", async () => {
    const before = await getOriginalStats();
    for (const answer of [
      await postRetrieve({ hash: "0123456789ab" }),
      await getRetrieve("0123456789abcdef01234567"),
    ]) {
      expect(answer.status).toBe(404);
      expect(Object.keys(answer.body)).toEqual(["detail", "status", "retryable"]);
      expect(answer.body).toMatchObject({ status: "missing", retryable: false });
      expect(answer.body.detail).toMatch(/No original was ever stored under/);
    }
    const after = await getOriginalStats();
    expect(after.totals.misses.unknown - before.totals.misses.unknown).toBe(2);
    const none = await postRetrieve({});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ detail: "hash required" });
    const bad = await postRetrieve({ hash: "not-hex" });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/hexadecimal/);
    const broken = await call(retrieve.POST, jsonRequest("/v1/retrieve", { raw: "{nope" }));
    expect(broken.status).toBe(400);
    expect(Object.keys(broken.body)).toEqual(["detail"]);
  });

  it("404 with status evicted or expired for an entry that is gone, never a 410", async () => {
    const victim = `evict me ${"v".repeat(3000)}`;
    const t0 = new Date();
    await storeOriginal({ original: victim }, { now: new Date(t0.getTime() - 60_000) });
    const { store: s } = await getOriginalStats();
    const keeper = `keep me ${"k".repeat(3000)}`;
    await storeOriginal(
      { original: keeper },
      {
        now: t0,
        config: {
          maxBytes: s.live_bytes - Buffer.byteLength(victim) + Buffer.byteLength(keeper),
          defaultTtlSeconds: null,
        },
      },
    );
    const evicted = await getRetrieve(headroomKey(victim, "sha256"));
    expect(evicted.status).toBe(404);
    expect(evicted.body).toMatchObject({ status: "evicted", retryable: false });
    expect(evicted.body.detail).toMatch(/evicted at .* will not help/);

    const brief = "short-lived";
    await storeOriginal({ original: brief, ttl_seconds: 60 }, { now: new Date(Date.now() - 120_000) });
    const expired = await postRetrieve({ hash: headroomKey(brief, "sha256") });
    expect(expired.status).toBe(404);
    expect(expired.body).toMatchObject({ status: "expired", retryable: false });
    expect(expired.body.detail).toMatch(/TTL of 60 s ran out/);
  });
});

describe("hash_algorithm on POST /api/v1/originals", () => {
  it("stores under an MD5 key, verified against the content, and retrieves by it", async () => {
    const original = "diff --git a/x b/x\n+added line\n";
    const md5Key = digestOf(original, "md5").slice(0, 24);
    const stored = await store({
      original,
      hash: md5Key,
      hash_algorithm: "md5",
      original_items: 3,
      compressed_items: 1,
    });
    expect(stored.status, stored.text).toBe(201);
    expect(stored.body.hash).toBe(sha256Hex(original));
    expect(stored.body.marker).toBe(`[3 items compressed to 1. Retrieve more: hash=${md5Key}]`);
    const hit = await getRetrieve(md5Key);
    expect(hit.status).toBe(200);
    expect(hit.body).toMatchObject({ hash: md5Key, original_content: original });
    expect(md5Key).toBe(headroomKey(original, "md5"));
  });

  it("stores under a BLAKE3 key (the default marker key when no hash is sent)", async () => {
    const original = 'fn main() { println!("hello"); }';
    const stored = await store({ original, hash_algorithm: "blake3" });
    expect(stored.status).toBe(201);
    const key = headroomKey(original, "blake3");
    expect(stored.body.marker_hash).toBe(key);
    const hit = await postRetrieve({ hash: key });
    expect(hit.status).toBe(200);
    expect(hit.body.original_content).toBe(original);
  });

  it("refuses a key that is not that digest of the content", async () => {
    const original = "some text";
    const error = expectError(
      await store({ original, hash: headroomKey(original, "sha256"), hash_algorithm: "md5" }),
      422,
      "validation_failed",
    );
    expect(error.issues?.[0]).toMatchObject({ path: "hash" });
    expect(error.message).toMatch(/is not the md5 of the original/);
    expectError(await store({ original, hash_algorithm: "sha1" }), 422, "validation_failed");
  });
});

describe("POST /v1/retrieve/tool_call", () => {
  const original = JSON.stringify({ results: ["a", "b", "c"] });
  const key = headroomKey(original, "sha256");

  it("answers an Anthropic tool_use with an Anthropic tool_result", async () => {
    await store({ original, original_items: 3, compressed_items: 1 });
    const answer = await tool({
      tool_call: { id: "toolu_01", name: "headroom_retrieve", input: { hash: key } },
      provider: "anthropic",
    });
    expect(answer.status, answer.text).toBe(200);
    const data = { hash: key, original_content: original, original_item_count: 3, compressed_item_count: 1 };
    expect(answer.body).toEqual({
      tool_result: { type: "tool_result", tool_use_id: "toolu_01", content: pyJsonIndent2(data) },
      success: true,
      data,
    });
  });

  it("answers an OpenAI tool call with an OpenAI tool message", async () => {
    const answer = await tool({
      tool_call: {
        id: "call_9",
        type: "function",
        function: { name: "headroom_retrieve", arguments: JSON.stringify({ hash: key }) },
      },
      provider: "openai",
    });
    expect(answer.status).toBe(200);
    expect(answer.body.tool_result).toEqual({ role: "tool", tool_call_id: "call_9", content: expect.any(String) });
    expect(JSON.parse(answer.body.tool_result.content)).toMatchObject({ hash: key, original_content: original });
    expect(answer.body.success).toBe(true);
  });

  it("reports a miss inside a successful answer, and refuses what is not a retrieve call", async () => {
    const missing = "fedcba9876543210fedcba98";
    const miss = await tool({ tool_call: { id: "t", name: "headroom_retrieve", input: { hash: missing } } });
    expect(miss.status).toBe(200);
    expect(miss.body.success).toBe(false);
    expect(miss.body.data).toMatchObject({ hash: missing, status: "missing", ttl_seconds: null });
    expect(miss.body.data.error).toMatch(/No original was ever stored/);
    expect(miss.body.tool_result).toMatchObject({ type: "tool_result", tool_use_id: "t" });
    const other = await tool({ tool_call: { id: "t", name: "web_search", input: { q: "x" } }, provider: "anthropic" });
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ detail: "Invalid tool call or not a headroom_retrieve call" });
  });
});

describe("GET /v1/retrieve/stats", () => {
  it("answers Headroom's store fields and the recent retrievals", async () => {
    const answer = await call(stats.GET, jsonRequest("/v1/retrieve/stats"));
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(["store", "recent_retrievals"]);
    const native = await getOriginalStats();
    expect(answer.body.store).toMatchObject({
      entry_count: native.store.live_count,
      max_entries: null,
      default_ttl_seconds: null,
      total_retrievals: native.totals.retrieved,
    });
    expect(answer.body.store.total_original_tokens).toBeGreaterThan(0);
    expect(answer.body.recent_retrievals.length).toBeGreaterThan(0);
    expect(answer.body.recent_retrievals.length).toBeLessThanOrEqual(20);
    expect(Object.keys(answer.body.recent_retrievals[0])).toEqual([
      "hash",
      "query",
      "items_retrieved",
      "total_items",
      "tool_name",
      "retrieval_type",
      "retrieved_at",
    ]);
  });
});

describe("the rest of /v1", () => {
  it("answers unknown paths and wrong methods in FastAPI's shape", async () => {
    const unknown = await call(catchAll.GET, jsonRequest("/v1/chat/completions"));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "Not Found" });
    const wrong = await call(retrieve.GET, jsonRequest("/v1/retrieve"));
    expect(wrong.status).toBe(405);
    expect(wrong.body).toEqual({ detail: "Method Not Allowed" });
    expect(wrong.headers.get("allow")).toBe("POST");
  });
});
