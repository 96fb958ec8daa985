// Derived data under the scopes (docs/access.md, "Derived data"): what a cached original says
// (its facts in lost and recoverable examples, its summary and metadata, which prefix names it)
// reaches only a caller who may read originals, within the tenant the call names. A caller with
// `ingest` alone gets counts and verdicts, answered as if no original were cached: no text of
// one, no prefix resolved, no metadata written, and no marker to test guesses against. Runs on
// both databases: the lookups it covers are SQL of their own.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as postRetrieval } from "@/app/api/v1/originals/[hash]/retrievals/route";
import { POST as postOriginal } from "@/app/api/v1/originals/route";
import { getDb } from "@/db/index";
import { createApiKey, forgetCredentialsCache } from "@/db/queries/access";
import { col, queryRows } from "@/db/sql";
import { sha256Hex } from "@/lib/guard/hash";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { bearer, setUpCleanAccessState } from "./access-helpers";
import { type Answer, call, expectError } from "./api-helpers";

setUpTestDatabase();
setUpCleanAccessState();

/** Someone's cached original, stated in facts the measurement lists one by one. */
const SECRET =
  "Billing DB: password=Hunter2-Xq9 host=db7.corp.internal user=svc_billing port=5433. Customer C-448120 owes 1249.50 EUR, contact ana.ruiz@corp.example.";
const SECRET_HASH = sha256Hex(SECRET);
/** Stored in tenant `headroom` only: no call naming another tenant may reach it. */
const HEADROOM_ONLY = "Queue worker: token=Qz81-Kappa-77 region=eu-west-3 shard=41 owner=ops-nightly@corp.example.";

type Caller = "ingest" | "reader";
const keys = {} as Record<Caller | "read", string>;

const retrieval = (key: string, hashKey: string, body: Record<string, unknown>) =>
  call(
    postRetrieval,
    jsonRequest(`/api/v1/originals/${hashKey}/retrievals`, { body, headers: bearer(key) }),
    params({ hash: hashKey }),
  );
const store = (key: string, body: Record<string, unknown>) =>
  call(postOriginal, jsonRequest("/api/v1/originals", { body, headers: bearer(key) }));

async function entry(tenant: string, hash: string) {
  const db = await getDb();
  const [row] = await queryRows(
    db,
    sql`select metadata, retrieval_count from originals where tenant = ${tenant} and hash = ${hash}`,
    { metadata: col.jsonObject.nullable(), retrieval_count: col.int },
  );
  return row;
}

/** Every counter of the store, so a test can prove that a refused call counted nothing. */
async function counters(): Promise<string> {
  const db = await getDb();
  const rows = await queryRows(db, sql`select hour, metric, value from ccr_counters order by hour, metric`, {
    hour: col.text,
    metric: col.text,
    value: col.int,
  });
  return JSON.stringify(rows);
}

beforeAll(async () => {
  keys.ingest = (await createApiKey({ name: "agent-ingest-only", scopes: ["ingest"], createdBy: null })).key;
  keys.reader = (await createApiKey({ name: "agent-reader", scopes: ["ingest", "read"], createdBy: null })).key;
  keys.read = (await createApiKey({ name: "dashboard-read", scopes: ["read"], createdBy: null })).key;
  forgetCredentialsCache();
  for (const [tenant, original] of [
    ["", SECRET],
    ["headroom", SECRET],
    ["headroom", HEADROOM_ONLY],
  ] as const) {
    const stored = await store(keys.reader, { original, tenant, metadata: { owner: tenant || "default" } });
    expect(stored.status, stored.text).toBe(201);
  }
});

describe("POST /api/v1/originals/{hash}/retrievals", () => {
  it("answers a caller without read as for a key never stored, and changes nothing", async () => {
    const keysAndTenants = [SECRET_HASH.slice(0, 12), SECRET_HASH.slice(0, 24), SECRET_HASH].flatMap((hashKey) =>
      ["", "headroom"].map((tenant) => ({ hashKey, tenant })),
    );
    const before = await counters();
    const refused: Answer[] = [];
    for (const { hashKey, tenant } of keysAndTenants)
      refused.push(await retrieval(keys.ingest, hashKey, { tenant, metadata: { owner: "mallory" } }));
    expect(await counters(), "no retrieval or miss counted").toBe(before);
    expect(await entry("", SECRET_HASH)).toEqual({ metadata: { owner: "default" }, retrieval_count: 0 });
    expect(await entry("headroom", SECRET_HASH)).toEqual({ metadata: { owner: "headroom" }, retrieval_count: 0 });
    for (const [i, { hashKey, tenant }] of keysAndTenants.entries()) {
      const answer = refused[i] as Answer;
      const neverStored = "0".repeat(hashKey.length);
      const unknown = await retrieval(keys.reader, neverStored, { tenant });
      expectError(answer, 404, "unknown_hash");
      expectError(unknown, 404, "unknown_hash");
      expect(answer.text.replaceAll(hashKey, "KEY"), `${hashKey} in "${tenant}"`).toBe(
        unknown.text.replaceAll(neverStored, "KEY"),
      );
    }
  });

  it("resolves a prefix, answers the summary and replaces the metadata for a reader, in its tenant only", async () => {
    const hit = await retrieval(keys.reader, SECRET_HASH.slice(0, 12), {
      tenant: "headroom",
      metadata: { owner: "headroom", seen: 1 },
    });
    expect(hit.status, hit.text).toBe(200);
    expect(hit.body).toMatchObject({ hash: SECRET_HASH, tenant: "headroom", metadata: { owner: "headroom", seen: 1 } });
    expect(await entry("headroom", SECRET_HASH)).toEqual({
      metadata: { owner: "headroom", seen: 1 },
      retrieval_count: 1,
    });
    // Another tenant's entry is not found from this one.
    const elsewhere = await retrieval(keys.reader, sha256Hex(HEADROOM_ONLY).slice(0, 12), { tenant: "" });
    expectError(elsewhere, 404, "unknown_hash");
    // A key with read alone does not write: the route is ingest's.
    expectError(await retrieval(keys.read, SECRET_HASH, {}), 403, "insufficient_scope");
  });
});

describe("POST /api/v1/originals, storing an original again", () => {
  it("replaces the entry's metadata only for a caller who may read it", async () => {
    const again = await store(keys.ingest, { original: SECRET, metadata: { owner: "mallory" } });
    expect(again.status, again.text).toBe(200);
    expect(again.body.deduplicated).toBe(true);
    expect(await entry("", SECRET_HASH)).toMatchObject({ metadata: { owner: "default" } });
    const reader = await store(keys.reader, { original: SECRET, metadata: { owner: "default", v: 2 } });
    expect(reader.status, reader.text).toBe(200);
    expect(await entry("", SECRET_HASH)).toMatchObject({ metadata: { owner: "default", v: 2 } });
  });
});
