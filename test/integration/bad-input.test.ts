// Bad input of every kind: each is a 4xx in the contract's error shape, none is a 5xx,
// and none changes a single row. Long because every refusal is checked against the one
// database the file seeds once, so that "changes nothing" is checked against the same rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as postBoundaries } from "@/app/api/v1/boundaries/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { POST as evaluate } from "@/app/api/v1/evaluate/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as getPolicy, PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { POST as postTraces } from "@/app/api/v1/traces/route";
import { POST as compress } from "@/app/api/v1/traces/compress/route";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, countRows, expectError, issuePaths, tableFingerprint, type Answer } from "./api-helpers";

setUpTestDatabase();

const pass = {
  pass_id: "p2",
  pass_number: 2,
  current_content_hash: "h",
  current_size_bytes: 1000,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.7,
};
const policy = { min_size_bytes: 10, min_semantic_density: 0.5, max_pass_number: 5 };
const receipt = {
  ...pass,
  chain_id: "bad-input",
  input_content_hash: "h1",
  content_class: "json",
  metadata: { tool: "x" },
};
const boundary = { chain_id: "bad-input", pass_number: 3, strategy: "halt", reason: "floor" };
const floor = { ...policy, required_fields: ["a"], description: "d" };

type Sender = (init: {
  raw?: string;
  body?: unknown;
  headers?: Record<string, string>;
  bytes?: Uint8Array<ArrayBuffer>;
}) => Promise<Answer>;

function sender(
  path: string,
  handler: (r: Request, c: any) => Promise<Response>,
  method = "POST",
  context: unknown = params({}),
): Sender {
  return (init) => {
    const request = init.bytes
      ? new Request(`http://localhost${path}`, {
          method,
          body: init.bytes,
          headers: { "content-type": "application/json", ...init.headers },
        })
      : jsonRequest(path, { method, ...init });
    return call(handler, request, context);
  };
}

const endpoints: Array<[name: string, send: Sender, valid: unknown]> = [
  ["POST /evaluate", sender("/api/v1/evaluate", evaluate), { pass, policy }],
  ["POST /passes", sender("/api/v1/passes", postPasses), receipt],
  ["POST /boundaries", sender("/api/v1/boundaries", postBoundaries), boundary],
  ["PUT /policies/json", sender("/api/v1/policies/json", putPolicy, "PUT", params({ content_class: "json" })), floor],
  ["POST /traces/compress", sender("/api/v1/traces/compress", compress), { nodes: [] }],
  ["POST /traces", sender("/api/v1/traces", postTraces), { trace_id: "t", nodes: [] }],
];

let fingerprint: string;
beforeAll(async () => {
  // A little of everything is stored first, so "nothing changed" is checked against real rows.
  const seed = sender("/api/v1/passes", postPasses);
  expect((await seed({ body: { ...receipt, pass_id: "p1", pass_number: 1 } })).status).toBe(201);
  expect((await sender("/api/v1/boundaries", postBoundaries)({ body: { ...boundary, pass_number: 1 } })).status).toBe(
    201,
  );
  expect(
    (await sender("/api/v1/policies/text", putPolicy, "PUT", params({ content_class: "text" }))({ body: floor }))
      .status,
  ).toBe(201);
  fingerprint = await tableFingerprint();
});

afterAll(async () => {
  // Every refused request above left every table exactly as it was.
  expect(await tableFingerprint()).toBe(fingerprint);
});

describe.each(endpoints)("%s: malformed bodies", (_name, send, valid) => {
  it("malformed JSON is 400 invalid_json", async () => {
    expectError(await send({ raw: '{"pass": ' }), 400, "invalid_json");
    expectError(await send({ raw: "{'single': 'quotes'}" }), 400, "invalid_json");
    expectError(await send({ raw: JSON.stringify(valid) + "}" }), 400, "invalid_json");
    expectError(await send({ raw: "NaN" }), 400, "invalid_json");
  });

  it("an empty or blank body is 400", async () => {
    expectError(await send({ raw: "" }), 400, "invalid_json");
    expectError(await send({ raw: " \n\t " }), 400, "invalid_json");
  });

  it("bytes that are not UTF-8 are 400", async () => {
    const text = Buffer.from(JSON.stringify(valid));
    expectError(
      await send({ bytes: new Uint8Array([...text.subarray(0, 2), 0xff, 0xfe, ...text.subarray(2)]) }),
      400,
      "invalid_json",
    );
  });

  it.each([
    "text/plain",
    "text/plain; charset=utf-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
  ])("Content-Type %s is 415", async (type) => {
    expectError(await send({ body: valid, headers: { "content-type": type } }), 415, "unsupported_media_type");
  });

  it("accepts JSON content types with parameters and in any case", async () => {
    for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/vnd.floorline+json"]) {
      expect((await send({ body: valid, headers: { "content-type": type } })).status).toBeLessThan(300);
    }
    // These were valid writes; the refusals that follow are measured against them.
    fingerprint = await tableFingerprint();
  });

  it("a body over 10 MiB is 413, streamed or declared", async () => {
    const huge = JSON.stringify({ ...(valid as object), padding: "x".repeat(10 * 1024 * 1024) });
    expectError(await send({ raw: huge }), 413, "payload_too_large");
    expectError(
      await send({ body: valid, headers: { "content-length": String(10 * 1024 * 1024 + 1) } }),
      413,
      "payload_too_large",
    );
  });

  it.each([["null"], ["42"], ['"text"'], ["true"], ["[]"], ["[[]]"]])(
    "JSON %s where an object is expected is 422",
    async (raw) => {
      const answer = await send({ raw });
      // A bare array is a batch for /evaluate; anything else must be refused as invalid input.
      expectError(answer, 422, "validation_failed");
    },
  );
});

describe("POST /passes: every kind of invalid field, one at a time", () => {
  const send = sender("/api/v1/passes", postPasses);
  const astral = "\u{1F600}";
  const cases: Array<[string, Record<string, unknown> | string, string]> = [
    ["pass_id of 257 characters", { pass_id: "x".repeat(257) }, "pass_id"],
    ["pass_id of 257 astral characters", { pass_id: astral.repeat(257) }, "pass_id"],
    ["empty pass_id", { pass_id: "" }, "pass_id"],
    ["numeric pass_id", { pass_id: 7 }, "pass_id"],
    ["pass_id with NUL", { pass_id: "a\u0000b" }, "pass_id"],
    ["pass_id with a lone high surrogate", '"pass_id": "a\\ud800b"', "pass_id"],
    ["pass_id with a lone low surrogate", '"pass_id": "\\udc00"', "pass_id"],
    ["pass_number as a numeric string", { pass_number: "2" }, "pass_number"],
    ["fractional pass_number", { pass_number: 2.5 }, "pass_number"],
    ["pass_number beyond 2^53-1", { pass_number: 2 ** 53 }, "pass_number"],
    ["pass_number far beyond", '"pass_number": 1e400', "pass_number"],
    ["negative pass_number", { pass_number: -1 }, "pass_number"],
    ["boolean pass_number", { pass_number: true }, "pass_number"],
    ["null pass_number", { pass_number: null }, "pass_number"],
    ["negative size", { current_size_bytes: -5 }, "current_size_bytes"],
    ["fractional size", { current_size_bytes: 10.5 }, "current_size_bytes"],
    ["size as a string", { current_size_bytes: "1000" }, "current_size_bytes"],
    ["is_parseable as 1", { is_parseable: 1 }, "is_parseable"],
    ["schema_valid as 0", { schema_valid: 0 }, "schema_valid"],
    ["is_parseable as a string", { is_parseable: "true" }, "is_parseable"],
    ["density above 1", { semantic_density_score: 1.0000001 }, "semantic_density_score"],
    ["density below 0", { semantic_density_score: -0.01 }, "semantic_density_score"],
    ["density as a string", { semantic_density_score: "0.5" }, "semantic_density_score"],
    ["density null", { semantic_density_score: null }, "semantic_density_score"],
    ["density overflowing to Infinity", '"semantic_density_score": 1e999', "semantic_density_score"],
    ["chain_id missing", { chain_id: undefined }, "chain_id"],
    ["chain_id null", { chain_id: null }, "chain_id"],
    ["chain_id empty", { chain_id: "" }, "chain_id"],
    ["chain_id of 257 characters", { chain_id: "c".repeat(257) }, "chain_id"],
    ["current_content_hash missing", { current_content_hash: undefined }, "current_content_hash"],
    ["current_content_hash too long to index", { current_content_hash: "a".repeat(513) }, "current_content_hash"],
    ["input_content_hash too long to index", { input_content_hash: astral.repeat(513) }, "input_content_hash"],
    ["content_class with a space", { content_class: "a b" }, "content_class"],
    ["content_class empty", { content_class: "" }, "content_class"],
    ["content_class of 65 characters", { content_class: "c".repeat(65) }, "content_class"],
    ["verdict not one of the four", { verdict: "SAFE" }, "verdict"],
    ["verdict in lower case", { verdict: "safe_to_compress" }, "verdict"],
    ["created_at not a timestamp", { created_at: "yesterday" }, "created_at"],
    ["created_at without a zone", { created_at: "2026-01-01T00:00:00" }, "created_at"],
    ["created_at on 30 February", { created_at: "2026-02-30T00:00:00Z" }, "created_at"],
    ["created_at in year 0", { created_at: "0000-01-01T00:00:00Z" }, "created_at"],
    ["created_at past year 9999 in UTC", { created_at: "9999-12-31T23:00:00-14:00" }, "created_at"],
    ["created_at as epoch number", { created_at: 1767225600 }, "created_at"],
    ["metadata as an array", { metadata: [1, 2] }, "metadata"],
    ["metadata as a string", { metadata: "{}" }, "metadata"],
    ["metadata over 16 KiB", { metadata: { blob: "x".repeat(16 * 1024) } }, "metadata"],
    ["metadata with NUL in a value", { metadata: { a: "x\u0000" } }, "metadata"],
    ["metadata with NUL in a key", { metadata: { "a\u0000": 1 } }, "metadata"],
    ["metadata with a lone surrogate", '"metadata": {"a": ["\\udfff"]}', "metadata"],
    ["metadata nested 100,000 deep", `"metadata": {"a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`, "metadata"],
    ["manifest_digest as a number", { manifest_digest: 1 }, "manifest_digest"],
  ];

  it.each(cases)("%s -> 422 naming it", async (_name, change, field) => {
    const before = await countRows();
    const answer =
      typeof change === "string"
        ? await send({ raw: JSON.stringify(receipt).slice(0, -1) + "," + change + "}" })
        : await send({ body: { ...receipt, ...change } });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toContain(field);
    expect(await countRows()).toEqual(before);
  });

  it("the same bad field inside a batch is named receipts.N.field", async () => {
    const answer = await send({ body: { receipts: [receipt, { ...receipt, pass_id: "q", pass_number: "3" }] } });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["receipts.1.pass_number"]);
  });

  it("limits are inclusive: 256-character ids (counted in code points, 4 bytes each: the widest key the unique index takes), 512-character hashes and 16 KiB of metadata", async () => {
    // Distinct four-byte characters: Postgres compresses repetitive index keys, which would hide an oversized one.
    const scattered = (n: number, salt: number) =>
      Array.from({ length: n }, (_, i) => String.fromCodePoint(0x10000 + ((i * 7919 + salt * 104729) % 0xf0000))).join(
        "",
      );
    const blob = "y".repeat(16 * 1024 - JSON.stringify({ blob: "" }).length);
    const answer = await send({
      body: {
        ...receipt,
        chain_id: scattered(256, 1),
        pass_id: scattered(256, 2),
        metadata: { blob },
        input_content_hash: scattered(512, 3),
        current_content_hash: scattered(512, 4),
      },
    });
    expect(answer.status).toBe(201);
    fingerprint = await tableFingerprint();
  });

  it("an array body is not a batch for /passes", async () => {
    const answer = await send({ body: [receipt] });
    expectError(answer, 422, "validation_failed");
  });
});

describe("POST /evaluate: invalid items", () => {
  const send = sender("/api/v1/evaluate", evaluate);

  it.each([
    [{ pass: [pass], policy }, "pass"],
    [{ pass, policy: [policy] }, "policy"],
    [{ pass }, "policy"],
    [{ policy }, "pass"],
    [{ pass: { ...pass, semantic_density_score: 2 }, policy }, "pass.semantic_density_score"],
    [{ pass, policy: { ...policy, min_semantic_density: -1 } }, "policy.min_semantic_density"],
    [{ pass, policy: { ...policy, max_pass_number: 1.5 } }, "policy.max_pass_number"],
    [{ pass, policy: { ...policy, min_size_bytes: "10" } }, "policy.min_size_bytes"],
    [{ pass: { ...pass, pass_id: "x".repeat(257) }, policy }, "pass.pass_id"],
    [{ pass: { ...pass, is_parseable: null }, policy }, "pass.is_parseable"],
    [{ pass: { ...pass, current_content_hash: null }, policy }, "pass.current_content_hash"],
  ])("%j -> 422 naming %s", async (body, field) => {
    const answer = await send({ body });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toContain(field);
  });

  it("names items of an array by index", async () => {
    const answer = await send({
      body: [
        { pass, policy },
        { pass: { ...pass, pass_number: -2 }, policy },
      ],
    });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["1.pass.pass_number"]);
  });

  it("refuses a lone surrogate in pass_id: the reference cannot hash it either", async () => {
    const answer = await send({
      raw: `{"pass": {"pass_id": "\\ud83d", "pass_number": 2, "current_content_hash": "", "current_size_bytes": 1, "is_parseable": true, "schema_valid": true, "semantic_density_score": 0.5}, "policy": ${JSON.stringify(policy)}}`,
    });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["pass.pass_id"]);
  });
});

describe("POST /boundaries: invalid receipts", () => {
  const send = sender("/api/v1/boundaries", postBoundaries);

  it.each([
    [{ strategy: "retry" }, "strategy"],
    [{ strategy: "restore" }, "restore_pass_id"],
    [{ strategy: "restore", restore_pass_id: null }, "restore_pass_id"],
    [{ strategy: "restore", restore_pass_id: "" }, "restore_pass_id"],
    [{ reason: "" }, "reason"],
    [{ reason: undefined }, "reason"],
    [{ reason: "r".repeat(4097) }, "reason"],
    [{ pass_number: -1 }, "pass_number"],
    [{ pass_number: "3" }, "pass_number"],
    [{ chain_id: "" }, "chain_id"],
    [{ strategy: "accept_loss", relaxed_policy: [1] }, "relaxed_policy"],
    [{ strategy: "accept_loss", relaxed_policy: { a: "x".repeat(16 * 1024) } }, "relaxed_policy"],
    [{ reason: "bad\u0000" }, "reason"],
  ])("%j -> 422 naming %s", async (change, field) => {
    const answer = await send({ body: { ...boundary, ...change } });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toContain(field);
  });

  it("a batch names each bad index, over 5,000 is refused", async () => {
    const answer = await send({
      body: { boundaries: [boundary, { ...boundary, strategy: "x" }, { ...boundary, reason: "" }] },
    });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["boundaries.1.strategy", "boundaries.2.reason"]);
    const many = Array.from({ length: 5_001 }, (_, i) => ({ ...boundary, pass_number: i }));
    expectError(await send({ body: { boundaries: many } }), 422, "validation_failed");
  });
});

describe("POST /traces/compress: invalid traces", () => {
  const send = sender("/api/v1/traces/compress", compress);

  it.each([
    [{ nodes: {} }, "nodes"],
    [{}, "nodes"],
    [
      { nodes: [{ node_id: "a", node_type: "verified_conclusion", content: "x", verification_receipt: "r" }] },
      "nodes.0.node_type",
    ],
    [{ nodes: [{ node_id: "a", node_type: "FALSIFIED_PATH", content: null }] }, "nodes.0.content"],
    [{ nodes: [{ node_type: "FALSIFIED_PATH", content: "x" }] }, "nodes.0.node_id"],
    [{ nodes: [{ node_id: "a", node_type: "FALSIFIED_PATH", content: "x\u0000" }] }, "nodes.0.content"],
    [
      {
        nodes: Array.from({ length: 10_001 }, () => ({ node_id: "a", node_type: "EXPLORATORY_CHATTER", content: "" })),
      },
      "nodes",
    ],
  ])("%# -> 422 naming %s", async (body, field) => {
    const answer = await send({ body });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toContain(field);
  });

  it("refuses a lone surrogate in content with 422, never 500", async () => {
    const answer = await send({
      raw: '{"nodes": [{"node_id": "a", "node_type": "VERIFIED_CONCLUSION", "content": "\\ud800", "verification_receipt": "r"}]}',
    });
    expectError(answer, 422, "validation_failed");
  });
});

describe("query parameters and path parameters", () => {
  const list = (query: string) => call(listChains, jsonRequest(`/api/v1/chains?${query}`));

  it.each([
    "limit=0",
    "limit=501",
    "limit=abc",
    "limit=1.5",
    "limit=-1",
    "limit=1e2",
    "limit=0x10",
    "limit=",
    "limit=%2010",
  ])("%s is 422", async (query) => {
    const error = expectError(await list(query), 422, "invalid_query");
    expect(error.issues?.map((i) => i.path)).toEqual(["limit"]);
  });

  it("limit=1 and limit=500 are accepted", async () => {
    expect((await list("limit=1")).status).toBe(200);
    expect((await list("limit=500")).status).toBe(200);
  });

  it.each([
    "status=exploded",
    "sort=name",
    "order=sideways",
    "content_class=a%20b",
    `q=${"q".repeat(257)}`,
    "q=%00",
    "content_class=%00",
  ])("%s is 422", async (query) => {
    expectError(await list(query), 422, "invalid_query");
  });

  it.each([
    ["not base64 JSON", "%%%"],
    ["JSON that is not an array", Buffer.from('{"a":1}').toString("base64url")],
    ["the wrong number of parts", Buffer.from('["x"]').toString("base64url")],
    ["objects as parts", Buffer.from("[{},{}]").toString("base64url")],
    ["nulls as parts", Buffer.from("[null,null]").toString("base64url")],
    ["garbage bytes", "AAAA"],
  ])("a cursor with %s is 422", async (_name, cursor) => {
    const error = expectError(await list(`cursor=${cursor}`), 422, "invalid_query");
    expect(error.issues?.map((i) => i.path)).toEqual(["cursor"]);
  });

  it("a chain id with NUL or a lone surrogate is 404, not 500", async () => {
    for (const id of ["a\u0000b", "\ud800"]) {
      expectError(await call(getChain, jsonRequest("/api/v1/chains/x"), params({ chain_id: id })), 404, "not_found");
    }
  });

  it("an unknown chain is 404", async () => {
    expectError(
      await call(getChain, jsonRequest("/api/v1/chains/none"), params({ chain_id: "none" })),
      404,
      "not_found",
    );
  });

  it("a policy class with NUL is 404 on GET and PUT", async () => {
    expectError(
      await call(getPolicy, jsonRequest("/api/v1/policies/x"), params({ content_class: "a\u0000" })),
      404,
      "not_found",
    );
    expectError(
      await sender("/api/v1/policies/x", putPolicy, "PUT", params({ content_class: "a\u0000" }))({ body: floor }),
      404,
      "not_found",
    );
  });
});
