// Retrievals of large originals served from memory (lib/originals/content-cache.ts) through the real
// route handlers: the same bytes as a first retrieval, each one still counted, and a gone
// original still refused by the database.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/originals/route";
import * as single from "@/app/api/v1/originals/[hash]/route";
import * as retrieve from "@/app/api/v1/retrieve/route";
import { getDb } from "@/db/index";
import { originals } from "@/db/schema";
import { CACHED_MIN_BYTES, forgetCachedOriginals } from "@/lib/originals/content-cache";
import { sha256Hex } from "@/lib/guard/hash";
import { call, post } from "./api-helpers";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const get = (key: string, headers?: Record<string, string>, query = "") =>
  call(single.GET, jsonRequest(`/api/v1/originals/${key}${query}`, { headers }), params({ hash: key }));
const retrieveKey = (hash: unknown) => post(retrieve.POST, "/api/v1/retrieve", { hash });
const store = (body: Record<string, unknown>) => post(collection.POST, "/api/v1/originals", body);

async function rowsFor(hash: string) {
  return (await getDb()).select({ original: originals.original }).from(originals).where(eq(originals.hash, hash));
}

function expectGone(answer: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body.error.code).toBe(code);
}

describe("retrieving a large original again (served from memory)", () => {
  // Above CACHED_MIN_BYTES, with quotes, a backslash, a control character and non-ASCII to escape.
  const large = JSON.stringify(
    Array.from({ length: 4000 }, (_, i) => ({ id: i, title: `"Quoted" \\ tab\t née ${i}`, ok: i % 3 === 0 })),
  );
  const largeHash = sha256Hex(large);

  it("answers the same bytes as a first retrieval, still counts each one, and keeps the key rules", async () => {
    forgetCachedOriginals();
    expect(large.length).toBeGreaterThan(CACHED_MIN_BYTES);
    expect((await store({ original: large, tool_name: "big.search" })).status).toBe(201);
    const first = await retrieveKey(largeHash);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(first.headers.get("cache-control")).toBe("no-store, no-transform");
    // What Response.json would have sent, key order included (the original last).
    expect(first.text).toBe(JSON.stringify(first.body));
    expect(Object.keys(first.body).at(-1)).toBe("original");
    expect(first.body.original).toBe(large);
    // From here the text comes from memory: a stand-in written under the hash (which a real
    // store never does, the hash being the text's digest) is not what the answers carry.
    const db = await getDb();
    await db.update(originals).set({ original: "stand-in" }).where(sql`hash = ${largeHash}`);
    for (const answer of [
      await retrieveKey(largeHash.slice(0, 24)),
      await get(largeHash.slice(0, 12)),
      await get(largeHash),
    ]) {
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(JSON.stringify(answer.body));
      expect(Object.keys(answer.body)).toEqual(Object.keys(first.body));
      expect(answer.body.original).toBe(large);
    }
    const raw = await get(largeHash, undefined, "?raw=1");
    expect(raw.text).toBe(large);
    const [row] = await rowsFor(largeHash);
    expect(row?.original).toBe("stand-in");
    await db.update(originals).set({ original: large }).where(sql`hash = ${largeHash}`);
    expect((await retrieveKey(largeHash)).body.retrieval_count).toBe(first.body.retrieval_count + 5);
  });

  it("never answers a gone original from memory: the database decides, 410", async () => {
    const db = await getDb();
    await db
      .update(originals)
      .set({ status: "evicted", original: null, goneAt: new Date(), goneReason: "test" })
      .where(sql`hash = ${largeHash}`);
    expectGone(await retrieveKey(largeHash), 410, "evicted");
    expectGone(await get(largeHash.slice(0, 24)), 410, "evicted");
    // Stored again: served again, the same text.
    expect((await store({ original: large })).status).toBe(201);
    expect((await retrieveKey(largeHash.slice(0, 16))).body.original).toBe(large);
  });
});
