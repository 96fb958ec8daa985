// Tenants, metadata, peeks, client-reported retrievals, deletion and counts: what a cache
// client (Headroom's CCR store) needs of the originals store, through the real handlers.
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/originals/route";
import * as single from "@/app/api/v1/originals/[hash]/route";
import * as retrievals from "@/app/api/v1/originals/[hash]/retrievals/route";
import * as counting from "@/app/api/v1/originals/count/route";
import * as retrieve from "@/app/api/v1/retrieve/route";
import { getDb } from "@/db/index";
import { originals } from "@/db/schema";
import { getStoreStats } from "@/db/queries/originals/metrics";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { storeOriginal } from "@/db/queries/originals/store";
import { sha256Hex } from "@/lib/guard/hash";
import { call, expectError, issuePaths, post } from "./api-helpers";
import { jsonRequest, params } from "../support/database";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const store = (body: Record<string, unknown>) => post(collection.POST, "/api/v1/originals", body);
const get = (key: string, query = "") =>
  call(single.GET, jsonRequest(`/api/v1/originals/${key}${query}`), params({ hash: key }));
const remove = (key: string, query = "") =>
  call(single.DELETE, jsonRequest(`/api/v1/originals/${key}${query}`, { method: "DELETE" }), params({ hash: key }));
const clear = (query: string) =>
  call(collection.DELETE, jsonRequest(`/api/v1/originals${query}`, { method: "DELETE" }));
const count = (query: string) => call(counting.GET, jsonRequest(`/api/v1/originals/count${query}`));
const list = (query: string) => call(collection.GET, jsonRequest(`/api/v1/originals${query}`));
const report = (key: string, body: unknown) =>
  call(retrievals.POST, jsonRequest(`/api/v1/originals/${key}/retrievals`, { body }), params({ hash: key }));

async function rowsOf(hash: string) {
  const db = await getDb();
  return db
    .select({
      tenant: originals.tenant,
      status: originals.status,
      retrieval_count: originals.retrievalCount,
      metadata: originals.metadata,
    })
    .from(originals)
    .where(eq(originals.hash, hash))
    .orderBy(originals.tenant);
}

const totals = async () => {
  const s = await getOriginalStats();
  return { retrieved: s.totals.retrieved, misses: s.totals.misses.total, evictions: s.totals.evictions, live: s.store };
};

const tool = (n: number) => JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, run: n, body: `row ${i}` })));

describe("tenants", () => {
  it("keeps one entry per tenant for the same original, each deduplicated on its own", async () => {
    const text = tool(1);
    const hash = sha256Hex(text);
    expect((await store({ original: text, compressed: "a", tenant: "acme" })).status).toBe(201);
    expect((await store({ original: text, compressed: "b", tenant: "globex" })).status).toBe(201);
    expect((await store({ original: text })).status).toBe(201);
    const again = await store({ original: text, tenant: "acme" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ hash, tenant: "acme", deduplicated: true });
    expect((await rowsOf(hash)).map((r) => r.tenant)).toEqual(["", "acme", "globex"]);
  });

  it("retrieves within the tenant asked for; the default tenant is its own namespace", async () => {
    const text = tool(2);
    const hash = sha256Hex(text);
    await store({ original: text, compressed: "only acme's", tenant: "acme" });
    expectError(await get(hash), 404, "unknown_hash");
    expectError(await post(retrieve.POST, "/api/v1/retrieve", { hash }), 404, "unknown_hash");
    const hit = await get(hash.slice(0, 12), "?tenant=acme");
    expect(hit.status, hit.text).toBe(200);
    expect(hit.body).toMatchObject({ hash, tenant: "acme", original: text, retrieval_count: 1 });
    const viaRetrieve = await post(retrieve.POST, "/api/v1/retrieve", { hash, tenant: "acme" });
    expect(viaRetrieve.body.retrieval_count).toBe(2);
    expect((await rowsOf(hash)).map((r) => r.retrieval_count)).toEqual([2]);
  });

  it("refuses a tenant that is not text of at most 128 characters", async () => {
    for (const tenant of ["x".repeat(129), 5, "a\u0000b"]) {
      const answer = await store({ original: tool(3), tenant });
      expectError(answer, 422, "validation_failed");
      expect(issuePaths(answer)).toEqual(["tenant"]);
    }
    expect(await rowsOf(sha256Hex(tool(3)))).toEqual([]);
    expectError(await get(sha256Hex(tool(3)), `?tenant=${"x".repeat(129)}`), 422, "invalid_query");
  });
});

describe("metadata", () => {
  it("is kept as given, answered with the entry, and replaced by a later store that sends some", async () => {
    const text = tool(4);
    const hash = sha256Hex(text);
    const first = { created_at: 1700000000.25, tool_call_id: "toolu_1", search_queries: ["a"] };
    await store({ original: text, tenant: "m", metadata: first });
    expect((await get(hash, "?tenant=m&peek=1")).body.metadata).toEqual(first);
    await store({ original: text, tenant: "m" });
    expect((await get(hash, "?tenant=m&peek=1")).body.metadata).toEqual(first);
    const second = { created_at: 1700000100.5, nested: { deep: [1, 2, { x: null }] } };
    expect((await store({ original: text, tenant: "m", metadata: second })).status).toBe(200);
    expect((await get(hash, "?tenant=m&peek=1")).body.metadata).toEqual(second);
    const listed = await list("?tenant=m");
    expect(listed.body.items.map((i: { metadata: unknown }) => i.metadata)).toEqual([second]);
  });

  it("refuses metadata that is not an object or is over 16 KiB, and writes nothing", async () => {
    const text = tool(5);
    for (const metadata of [[1, 2], "text", 5, { big: "x".repeat(16 * 1024) }]) {
      const answer = await store({ original: text, metadata });
      expectError(answer, 422, "validation_failed");
      expect(issuePaths(answer)).toEqual(["metadata"]);
    }
    expect(await rowsOf(sha256Hex(text))).toEqual([]);
  });
});

describe("peek", () => {
  it("answers both texts and the metadata, counting nothing and leaving recency alone", async () => {
    const text = tool(6);
    const hash = sha256Hex(text);
    await store({ original: text, compressed: "six", tenant: "p", metadata: { k: 1 } });
    const before = await totals();
    const peeked = await get(hash.slice(0, 24), "?tenant=p&peek=1");
    expect(peeked.status, peeked.text).toBe(200);
    expect(peeked.body).toMatchObject({ hash, tenant: "p", original: text, compressed: "six", metadata: { k: 1 } });
    expect(peeked.body).toMatchObject({ retrieval_count: 0, last_retrieved_at: null });
    expectError(await get("ab".repeat(12), "?tenant=p&peek=1"), 404, "unknown_hash");
    expect(await totals()).toEqual(before);
    const raw = await get(hash, "?tenant=p&peek=1&raw=1");
    expect(raw.text).toBe(text);
    expect(await totals()).toEqual(before);
  });
});

describe("a retrieval the client served itself", () => {
  it("counts as a retrieval, replaces the metadata when given, and sends no text", async () => {
    const text = tool(7);
    const hash = sha256Hex(text);
    await store({ original: text, tenant: "r", metadata: { n: 0 } });
    const before = await totals();
    const answer = await report(hash.slice(0, 24), { tenant: "r", metadata: { n: 1, search_queries: ["q"] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      hash,
      tenant: "r",
      retrieval_count: 1,
      metadata: { n: 1, search_queries: ["q"] },
    });
    expect(answer.body.original).toBeUndefined();
    expect(answer.body.last_retrieved_at).not.toBeNull();
    const kept = await report(hash, { tenant: "r" });
    expect(kept.body).toMatchObject({ retrieval_count: 2, metadata: { n: 1, search_queries: ["q"] } });
    const after = await totals();
    expect(after.retrieved - before.retrieved).toBe(2);
    expect(after.misses).toBe(before.misses);
  });

  it("answers and counts a miss as a retrieval would; bad input changes nothing", async () => {
    const before = await totals();
    expectError(await report("cd".repeat(12), { tenant: "r" }), 404, "unknown_hash");
    expect((await totals()).misses - before.misses).toBe(1);
    const text = tool(8);
    const hash = sha256Hex(text);
    await store({ original: text, tenant: "r", metadata: { n: 0 } });
    const bad = await report(hash, { tenant: "r", metadata: [1] });
    expectError(bad, 422, "validation_failed");
    expect(issuePaths(bad)).toEqual(["metadata"]);
    expectError(await report("xyz", {}), 422, "validation_failed");
    const [row] = await rowsOf(hash);
    expect({ count: Number(row?.retrieval_count), metadata: row?.metadata }).toEqual({ count: 0, metadata: { n: 0 } });
  });
});

describe("deleting", () => {
  it("tombstones one tenant's entry, says why on the next retrieval, and leaves the others", async () => {
    const text = tool(9);
    const hash = sha256Hex(text);
    await store({ original: text, tenant: "d1" });
    await store({ original: text, tenant: "d2" });
    const before = await totals();
    const deleted = await remove(hash.slice(0, 12), "?tenant=d1");
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ hash, tenant: "d1", deleted: true, status: "evicted" });
    const gone = expectError(await get(hash, "?tenant=d1"), 410, "evicted");
    expect(gone.message).toMatch(/Deleted by a client \(DELETE \/api\/v1\/originals\//);
    expectError(await get(hash, "?tenant=d1&peek=1"), 410, "evicted");
    expect((await get(hash, "?tenant=d2")).status).toBe(200);
    const again = await remove(hash, "?tenant=d1");
    expect(again.body).toEqual({ hash, tenant: "d1", deleted: false, status: "evicted" });
    const after = await totals();
    expect(after.evictions - before.evictions).toBe(1);
    expect(before.live.live_bytes - after.live.live_bytes).toBe(Buffer.byteLength(text));
    // Stored again, it comes back to life.
    expect((await store({ original: text, tenant: "d1" })).status).toBe(201);
  });

  it("answers 404 for a key this tenant never stored and 422 for a malformed key", async () => {
    const text = tool(10);
    await store({ original: text, tenant: "d3" });
    expectError(await remove(sha256Hex(text)), 404, "unknown_hash");
    expectError(await remove(sha256Hex(text), "?tenant=other"), 404, "unknown_hash");
    expectError(await remove("not-hex-at-all"), 422, "validation_failed");
    expect((await rowsOf(sha256Hex(text))).map((r) => r.status)).toEqual(["live"]);
  });

  it("clears one tenant in one go; other tenants and the default one keep theirs", async () => {
    const texts = [tool(11), tool(12), tool(13)];
    const gaugesBefore = await getStoreStats();
    for (const t of texts) await store({ original: t, tenant: "wipe", compressed: "c" });
    await store({ original: texts[0], tenant: "keep" });
    await store({ original: texts[0] });
    const cleared = await clear("?tenant=wipe");
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toEqual({
      tenant: "wipe",
      deleted: 3,
      deleted_bytes: texts.reduce((n, t) => n + Buffer.byteLength(t) + 1, 0),
    });
    expect((await count("?tenant=wipe&status=live")).body).toEqual({ count: 0, bytes: 0 });
    expect((await count("?tenant=keep&status=live")).body.count).toBe(1);
    expect((await rowsOf(sha256Hex(texts[0] as string))).map((r) => [r.tenant, r.status])).toEqual([
      ["", "live"],
      ["keep", "live"],
      ["wipe", "evicted"],
    ]);
    expect((await clear("?tenant=wipe")).body.deleted).toBe(0);
    // The /metrics gauges: two entries stay live, three became tombstones.
    const gauges = await getStoreStats();
    expect(gauges.entries.live - gaugesBefore.entries.live).toBe(2);
    expect(gauges.entries.evicted - gaugesBefore.entries.evicted).toBe(3);
    expect(gauges.bytes - gaugesBefore.bytes).toBe(2 * Buffer.byteLength(texts[0] as string));
  });

  it("refuses to clear without naming the tenant, and clears nothing", async () => {
    await store({ original: tool(14) });
    const live = (await count("?tenant=&status=live")).body.count;
    const refused = await clear("");
    expectError(refused, 422, "invalid_query");
    expect(issuePaths(refused)).toEqual(["tenant"]);
    expect((await count("?tenant=&status=live")).body.count).toBe(live);
    expect((await clear("?tenant=")).body.deleted).toBe(live);
  });
});

describe("counting and listing", () => {
  it("counts the filters' entries and bytes, by tenant, status and key", async () => {
    const a = tool(15);
    const b = tool(16);
    await store({ original: a, compressed: "xy", tenant: "cnt" });
    await store({ original: b, tenant: "cnt" });
    expect((await count("?tenant=cnt")).body).toEqual({
      count: 2,
      bytes: Buffer.byteLength(a) + 2 + Buffer.byteLength(b),
    });
    expect((await count(`?tenant=cnt&key=${sha256Hex(a).slice(0, 12)}`)).body.count).toBe(1);
    expectError(await count("?key=xyz"), 422, "invalid_query");
    const keyed = await list(`?tenant=cnt&key=${sha256Hex(b)}`);
    expect(keyed.body.items.map((i: { hash: string }) => i.hash)).toEqual([sha256Hex(b)]);
  });

  it("finds an MD5-keyed entry by that key, per tenant", async () => {
    const text = tool(17);
    const md5 = createHash("md5").update(text).digest("hex");
    await store({ original: text, tenant: "alt", hash: md5.slice(0, 24), hash_algorithm: "md5" });
    expect((await count(`?tenant=alt&key=${md5.slice(0, 24)}`)).body.count).toBe(1);
    expect((await get(md5.slice(0, 24), "?tenant=alt&peek=1")).body.original).toBe(text);
    expectError(await get(md5.slice(0, 24), "?tenant=other&peek=1"), 404, "unknown_hash");
  });

  it("pages every tenant's copy of one original exactly once", async () => {
    const text = tool(18);
    for (const tenant of ["pg-a", "pg-b", "pg-c"]) await store({ original: text, tenant });
    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await list(`?q=${sha256Hex(text).slice(0, 16)}&sort=size&limit=1${cursor}`);
      expect(page.status, page.text).toBe(200);
      for (const item of page.body.items) seen.push(item.tenant);
      cursor = page.body.next_cursor ? `&cursor=${page.body.next_cursor}` : "";
    } while (cursor);
    expect(seen.sort()).toEqual(["pg-a", "pg-b", "pg-c"]);
  });
});

describe("storing the same entry again", () => {
  it("extends its expiry from the new store, per tenant, and never shortens it", async () => {
    const text = tool(19);
    const t0 = new Date("2026-03-01T10:00:00.000Z");
    await storeOriginal({ original: text, tenant: "ttl", ttl_seconds: 60 }, { now: t0 });
    const later = await storeOriginal(
      { original: text, tenant: "ttl", ttl_seconds: 60 },
      { now: new Date(t0.getTime() + 30_000) },
    );
    expect(later.result.expires_at).toBe("2026-03-01T10:01:30.000Z");
    const shorter = await storeOriginal(
      { original: text, tenant: "ttl", ttl_seconds: 10 },
      { now: new Date(t0.getTime() + 40_000) },
    );
    expect(shorter.result.expires_at).toBe("2026-03-01T10:01:30.000Z");
  });
});
