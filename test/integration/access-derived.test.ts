// Derived data under the scopes (docs/access.md, "Derived data"): what a cached original says
// (its facts in lost and recoverable examples, its summary and metadata, which prefix names it)
// reaches only a caller who may read originals, within the tenant the call names. A caller with
// `ingest` alone gets counts and verdicts, answered as if no original were cached: no text of
// one, no prefix resolved, no metadata written, and no marker to test guesses against. Runs on
// both databases: the lookups it covers are SQL of their own.
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as postRetrieval } from "@/app/api/v1/originals/[hash]/retrievals/route";
import { POST as postOriginal } from "@/app/api/v1/originals/route";
import { POST as postMeasure } from "@/app/api/v1/measure/route";
import { POST as otlpPost } from "@/app/api/v1/otlp/v1/traces/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { getDb } from "@/db/index";
import { createApiKey, forgetCredentialsCache } from "@/db/queries/access";
import { col, queryRows } from "@/db/sql";
import { sha256Hex } from "@/lib/guard/hash";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { bearer, setUpCleanAccessState } from "./access-helpers";
import { type Answer, call, expectError, contentReceipt } from "./api-helpers";

setUpTestDatabase();
setUpCleanAccessState();

/** Someone's cached original, stated in facts the measurement lists one by one. */
const SECRET =
  "Billing DB: password=Hunter2-Xq9 host=db7.corp.internal user=svc_billing port=5433. Customer C-448120 owes 1249.50 EUR, contact ana.ruiz@corp.example.";
const SECRET_HASH = sha256Hex(SECRET);
const SECRET_FACTS = [
  "Hunter2-Xq9",
  "db7.corp.internal",
  "svc_billing",
  "5433",
  "C-448120",
  "1249.50",
  "ana.ruiz@corp.example",
];
/** Stored in tenant `headroom` only: no call naming another tenant may reach it. */
const HEADROOM_ONLY = "Queue worker: token=Qz81-Kappa-77 region=eu-west-3 shard=41 owner=ops-nightly@corp.example.";
/** Guesses at SECRET's facts, right and wrong, with as many facts each. */
const RIGHT = "password=Hunter2-Xq9 port=5433";
const WRONG = "password=Letmein-Zz1 port=6543";

type Caller = "ingest" | "reader";
const keys = {} as Record<Caller | "read", string>;

const marker = (hash: string) => `Billing notes. [Content compressed. Retrieve more: hash=${hash.slice(0, 12)}]`;

const receipt = contentReceipt;

const passes = (caller: Caller, body: unknown) =>
  call(postPasses, jsonRequest("/api/v1/passes", { body, headers: bearer(keys[caller]) }));
const retrieval = (key: string, hashKey: string, body: Record<string, unknown>) =>
  call(
    postRetrieval,
    jsonRequest(`/api/v1/originals/${hashKey}/retrievals`, { body, headers: bearer(key) }),
    params({ hash: hashKey }),
  );
const store = (key: string, body: Record<string, unknown>) =>
  call(postOriginal, jsonRequest("/api/v1/originals", { body, headers: bearer(key) }));

/** An ingest answer with its chain's id taken out, and the digests that hash it. */
function shapeOf(answer: Answer, chainId: string): string {
  return JSON.stringify(answer.body, (key, value) => (key === "manifest_digest" ? undefined : value)).replaceAll(
    chainId,
    "CHAIN",
  );
}

/** Fails naming the first fact of SECRET that an answer states. */
function expectNoSecret(answer: Answer, label: string): void {
  for (const fact of SECRET_FACTS) expect(answer.text, `${label} states ${fact}`).not.toContain(fact);
}

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

async function chainSource(chainId: string) {
  const db = await getDb();
  const [row] = await queryRows(db, sql`select origin, source from chain_sources where chain_id = ${chainId}`, {
    origin: col.text,
    source: col.text,
  });
  return row;
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

describe("POST /api/v1/passes naming a cached original", () => {
  it("measures an ingest-only caller's chain as if the original its input hash names were not cached", async () => {
    const bait = "Nothing specific is said here.";
    const body = (chainId: string, inputHash: string) => ({
      receipts: [
        receipt(chainId, 1, bait, { input_content_hash: inputHash }),
        receipt(chainId, 2, bait, { input_content_hash: sha256Hex(bait) }),
      ],
    });
    const refused = await passes("ingest", body("dd-ingest", SECRET_HASH));
    const nothing = await passes("ingest", body("dd-nothing", sha256Hex("an original nobody stored")));
    expect(refused.status, refused.text).toBe(201);
    expectNoSecret(refused, "the ingest-only answer");
    expect(shapeOf(refused, "dd-ingest")).toBe(shapeOf(nothing, "dd-nothing"));
    expect(await chainSource("dd-ingest")).toBeUndefined();

    const read = await passes("reader", body("dd-reader", SECRET_HASH));
    expect(read.status, read.text).toBe(201);
    expect(read.body.results[1].server_checks.lost_examples).toContain("password=Hunter2-Xq9");
    expect(await chainSource("dd-reader")).toEqual({ origin: "original", source: SECRET });

    // The reader's chain now keeps a copy of the original as its source: a pass another
    // caller sends to that chain is not measured against it.
    const later = await passes("ingest", receipt("dd-reader", 3, bait));
    expect(later.status, later.text).toBe(201);
    expectNoSecret(later, "a later ingest-only pass");
    expect(later.body.server_checks.semantic_density_score).toBeUndefined();
    // Sent again as it was, a reader's receipt answers its stored checks without their texts.
    const retried = await passes("ingest", body("dd-reader", SECRET_HASH));
    expect(retried.status, retried.text).toBe(200);
    expectNoSecret(retried, "a retry by an ingest-only caller");
    expect(retried.body.results[1].server_checks).toMatchObject({
      facts: read.body.results[1].server_checks.facts,
      lost_examples: [],
    });
    const readAgain = await passes("reader", body("dd-reader", SECRET_HASH));
    expect(readAgain.body).toEqual(read.body);
  });

  it("quotes a chain's stored source to an ingest-only caller only when it sent that source itself", async () => {
    const bait = "Nothing specific is said here.";
    // Another caller's chain, its source sent as pass 1's input_content and stored.
    const first = await passes("reader", { receipts: [receipt("dd-shared", 1, bait, { input_content: SECRET })] });
    expect(first.status, first.text).toBe(201);
    // An ingest-only pass on it is measured (counts and verdicts), but quotes none of the source.
    const later = await passes("ingest", receipt("dd-shared", 2, bait));
    expect(later.status, later.text).toBe(201);
    expectNoSecret(later, "an ingest-only pass on another caller's chain");
    expect(later.body.server_checks).toMatchObject({ lost_examples: [], facts: { lost: expect.any(Number) } });
    expect(later.body.server_checks.facts.lost).toBeGreaterThan(0);
    // Its own source, sent in the same batch, it sees quoted.
    const own = await passes("ingest", {
      receipts: [receipt("dd-own", 1, bait, { input_content: SECRET }), receipt("dd-own", 2, bait)],
    });
    expect(own.status, own.text).toBe(201);
    expect(own.body.results[1].server_checks.lost_examples).toContain("password=Hunter2-Xq9");
  });

  it("does not take an ingest-only caller's content from the original its content hash names", async () => {
    const named = (chainId: string, hash: string) => ({
      receipts: [
        receipt(chainId, 1, null, { input_content: RIGHT, current_content_hash: hash, current_size_bytes: 10 }),
      ],
    });
    const refused = await passes("ingest", named("dc-ingest", SECRET_HASH));
    const nothing = await passes("ingest", named("dc-nothing", sha256Hex("an original nobody stored")));
    expect(refused.status, refused.text).toBe(201);
    expect(shapeOf(refused, "dc-ingest")).toBe(shapeOf(nothing, "dc-nothing"));
    expect(refused.body.results[0].server_checks).toBeUndefined();
    const read = await passes("reader", named("dc-reader", SECRET_HASH));
    expect(read.body.results[0].server_checks).toMatchObject({ size_matches: false, facts: { retained: 2 } });
  });

  it("gives an ingest-only caller no oracle: right and wrong guesses beside a marker answer the same", async () => {
    const guess = async (caller: Caller, chainId: string, source: string, hash = SECRET_HASH) => {
      const answer = await passes(caller, {
        receipts: [receipt(chainId, 1, null, { input_content: source }), receipt(chainId, 2, marker(hash))],
      });
      expect(answer.status, answer.text).toBe(201);
      return answer.body.results[1].server_checks;
    };
    const right = await guess("ingest", "do-ingest-right", RIGHT);
    const wrong = await guess("ingest", "do-ingest-wrong", WRONG);
    const { lost_examples: rightExamples, ...rightCounts } = right;
    const { lost_examples: wrongExamples, ...wrongCounts } = wrong;
    expect(rightCounts).toEqual(wrongCounts);
    expect(right.facts).toMatchObject({ recoverable: 0, lost: 2 });
    // Its lost examples are its own guesses, nothing more.
    expect(rightExamples).toEqual(["password=Hunter2-Xq9", "port=5433"]);
    expect(wrongExamples).toEqual(["password=Letmein-Zz1", "port=6543"]);

    // A reader gets what the marker makes recoverable; within the default tenant only.
    expect((await guess("reader", "do-reader-right", RIGHT)).facts).toMatchObject({ recoverable: 2, lost: 0 });
    expect((await guess("reader", "do-reader-wrong", WRONG)).facts).toMatchObject({ recoverable: 0, lost: 2 });
    const headroom = await guess("reader", "do-reader-tenant", "token=Qz81-Kappa-77", sha256Hex(HEADROOM_ONLY));
    expect(headroom.facts).toMatchObject({ recoverable: 0 });
  });
});

describe("POST /api/v1/otlp/v1/traces naming a cached original", () => {
  function exportOf(chainId: string, attributes: Record<string, string | number | boolean>) {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": "derived" }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    provider
      .getTracer("it")
      .startSpan("pass", {
        attributes: {
          "floorline.chain_id": chainId,
          "floorline.pass.id": `${chainId}.p1`,
          "floorline.pass.number": 1,
          "floorline.pass.size_bytes": 30,
          "floorline.pass.parseable": true,
          "floorline.pass.schema_valid": true,
          "floorline.pass.semantic_density": 0.9,
          ...attributes,
        },
      })
      .end();
    const bytes = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
    if (!bytes) throw new Error("no body");
    return bytes;
  }
  const send = async (caller: Caller, chainId: string) => {
    const response = await otlpPost(
      new Request("http://localhost/api/v1/otlp/v1/traces", {
        method: "POST",
        body: exportOf(chainId, {
          "floorline.pass.input_hash": SECRET_HASH,
          "floorline.pass.content": "Brief.",
        }) as Uint8Array<ArrayBuffer>,
        headers: { "content-type": "application/json", ...bearer(keys[caller]) },
      }),
      { params: Promise.resolve({}) },
    );
    expect(response.status, await response.clone().text()).toBe(200);
  };

  it("keeps no copy of an original for an ingest-only caller's chain to be measured against", async () => {
    await send("ingest", "dt-ingest");
    expect(await chainSource("dt-ingest")).toBeUndefined();
    const later = await passes("ingest", receipt("dt-ingest", 2, "Brief."));
    expectNoSecret(later, "a pass after an OTLP export");
    await send("reader", "dt-reader");
    expect(await chainSource("dt-reader")).toEqual({ origin: "original", source: SECRET });
  });
});

describe("POST /api/v1/measure", () => {
  it("consults no cached original: right and wrong guesses answer the same for every key", async () => {
    for (const key of [keys.ingest, keys.read]) {
      const answers = [];
      for (const source of [RIGHT, WRONG]) {
        const answer = await call(
          postMeasure,
          jsonRequest("/api/v1/measure", { body: { content: marker(SECRET_HASH), source }, headers: bearer(key) }),
        );
        expect(answer.status, answer.text).toBe(200);
        const { lost_examples: _, ...counts } = answer.body;
        answers.push(counts);
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0].facts).toMatchObject({ recoverable: 0 });
    }
  });
});
