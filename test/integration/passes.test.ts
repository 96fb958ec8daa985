// POST /api/v1/passes through the real route handler on a real database: the server's verdicts
// under each policy version, client mismatches, idempotency, concurrency and range, and
// all-or-nothing batches. Long because each of those is a section of its own over one route.
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { evaluatePass } from "@/lib/guard/guard";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, countRows, expectError, guardVectors, issuePaths, post, tableFingerprint } from "./api-helpers";

setUpTestDatabase();

const send = (body: unknown) => post(postPasses, "/api/v1/passes", body);
const putFloor = (contentClass: string, body: unknown) =>
  call(
    putPolicy,
    jsonRequest(`/api/v1/policies/${contentClass}`, { method: "PUT", body }),
    params({ content_class: contentClass }),
  );
const chain = (chainId: string) =>
  call(getChain, jsonRequest(`/api/v1/chains/${encodeURIComponent(chainId)}`), params({ chain_id: chainId }));

const base = {
  pass_number: 2,
  current_content_hash: "h2",
  current_size_bytes: 1000,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.45,
};
const receipt = (chainId: string, passId: string, extra: Record<string, unknown> = {}) => ({
  chain_id: chainId,
  pass_id: passId,
  ...base,
  ...extra,
});

describe("POST /api/v1/passes: server verdicts and policy versions", () => {
  it("evaluates a receipt of a class with no policy under the default (version 0)", async () => {
    const answer = await send(receipt("c-default", "p2"));
    expect(answer.status).toBe(201);
    const manifest = evaluatePass({ pass_id: "p2", ...base }, CONSERVATIVE_DEFAULT_POLICY);
    // 0.45 is under the default density floor of 0.5.
    expect(manifest.verdict).toBe("COLLAPSE_IMMINENT");
    expect(answer.body).toEqual({
      chain_id: "c-default",
      pass_id: "p2",
      ...manifest,
      policy_version: 0,
      client_mismatch: false,
    });
  });

  it("uses the version of the class policy in force, and stores it", async () => {
    const v1 = { min_size_bytes: 100, min_semantic_density: 0.4, max_pass_number: 10 };
    expect((await putFloor("json", v1)).body.version).toBe(1);
    const first = await send(receipt("c-json", "p2", { content_class: "json" }));
    expect(first.body).toMatchObject({ verdict: "SAFE_TO_COMPRESS", policy_version: 1 });
    expect(first.body).toMatchObject(evaluatePass({ pass_id: "p2", ...base }, v1));

    const v2 = { ...v1, min_semantic_density: 0.5 };
    expect((await putFloor("json", v2)).body.version).toBe(2);
    const second = await send(
      receipt("c-json", "p3", { content_class: "json", pass_number: 3, input_content_hash: "h2" }),
    );
    expect(second.body).toMatchObject({
      verdict: "COLLAPSE_IMMINENT",
      directive: "HALT: Density 0.45 < 0.50.",
      policy_version: 2,
    });

    // Other classes are untouched by json's policy.
    expect((await send(receipt("c-text", "p2", { content_class: "text" }))).body.policy_version).toBe(0);

    const detail = await chain("c-json");
    expect(
      detail.body.passes.map((p: { pass_id: string; policy_version: number; verdict: string }) => [
        p.pass_id,
        p.policy_version,
        p.verdict,
      ]),
    ).toEqual([
      ["p2", 1, "SAFE_TO_COMPRESS"],
      ["p3", 2, "COLLAPSE_IMMINENT"],
    ]);
  });

  it("a retry after a policy change returns the verdict stored under the old version", async () => {
    const before = await countRows();
    const retry = await send(receipt("c-json", "p2", { content_class: "json" }));
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ verdict: "SAFE_TO_COMPRESS", policy_version: 1 });
    expect(await countRows()).toEqual(before);
  });

  it("every public guard vector, ingested under a policy equal to its own, gets the reference verdict", async () => {
    const vectors = guardVectors();
    const receipts = [];
    for (const [i, v] of vectors.entries()) {
      const contentClass = `vec-${i}`;
      expect((await putFloor(contentClass, v.policy)).status).toBe(201);
      receipts.push({
        ...v.pass,
        chain_id: `vectors-${i}`,
        content_class: contentClass,
        verdict: v.expect.verdict,
        manifest_digest: v.expect.manifest_digest,
      });
    }
    const answer = await send({ receipts });
    expect(answer.status).toBe(201);
    answer.body.results.forEach((r: Record<string, unknown>, i: number) => {
      expect(r).toEqual({
        chain_id: `vectors-${i}`,
        pass_id: vectors[i]?.pass.pass_id,
        ...vectors[i]?.expect,
        policy_version: 1,
        client_mismatch: false,
      });
    });
  });
});

describe("POST /api/v1/passes: client mismatch", () => {
  const manifest = evaluatePass({ pass_id: "m", ...base }, CONSERVATIVE_DEFAULT_POLICY);

  it.each([
    ["agreeing verdict and digest", { verdict: manifest.verdict, manifest_digest: manifest.manifest_digest }, false],
    ["agreeing verdict only", { verdict: manifest.verdict }, false],
    ["no client opinion", {}, false],
    ["null client fields", { verdict: null, manifest_digest: null }, false],
    ["a different verdict", { verdict: "SAFE_TO_COMPRESS", manifest_digest: manifest.manifest_digest }, true],
    ["a different digest", { verdict: manifest.verdict, manifest_digest: "0".repeat(64) }, true],
    ["a digest in upper case", { manifest_digest: manifest.manifest_digest.toUpperCase() }, true],
  ])("%s -> client_mismatch %s", async (name, client, mismatch) => {
    const chainId = `mismatch-${name}`;
    const answer = await send({ ...receipt(chainId, "m"), ...client });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      chain_id: chainId,
      pass_id: "m",
      ...manifest,
      policy_version: 0,
      client_mismatch: mismatch,
    });
    const detail = await chain(chainId);
    expect(detail.body.passes[0]).toMatchObject({ client_mismatch: mismatch, verdict: manifest.verdict });
    expect(detail.body.client_mismatches).toBe(mismatch ? 1 : 0);
  });

  it("refuses a verdict that is not one of the four", async () => {
    const answer = await send({ ...receipt("mismatch-bad", "m"), verdict: "MAYBE" });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["verdict"]);
  });
});

describe("POST /api/v1/passes: idempotency", () => {
  const r = receipt("idem", "p1", {
    pass_number: 1,
    metadata: { b: 1, a: [1, 2] },
    created_at: "2026-01-02T03:04:05.000Z",
  });

  it("a retry returns the stored result with 200 and writes nothing", async () => {
    const first = await send(r);
    expect(first.status).toBe(201);
    const before = await tableFingerprint();
    const retry = await send({ ...r, metadata: { a: [1, 2], b: 1 } });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await tableFingerprint()).toBe(before);
  });

  it("an explicit default class does not change the identity of a receipt", async () => {
    const before = await tableFingerprint();
    const retry = await send({ ...r, content_class: "default" });
    expect(retry.status).toBe(200);
    expect(await tableFingerprint()).toBe(before);
  });

  it("refuses unknown fields with 422, naming each and the field it most likely meant", async () => {
    const before = await tableFingerprint();
    // A misspelt class used to land the receipt in class `default`, silently.
    const misspelt = await send({ ...receipt("unknown-fields", "p1"), content_clas: "api-json", tokens: 3 });
    const error = expectError(misspelt, 422, "validation_failed");
    expect(error.message).toContain("content_clas");
    const issues = (misspelt.body as { error: { issues: { path: string; message: string }[] } }).error.issues;
    expect(issues.map((issue) => issue.path)).toEqual(["content_clas", "tokens"]);
    expect(issues[0]?.message).toContain('did you mean "content_class"?');
    expect(issues[1]?.message).not.toContain("did you mean");
    expect(issues[1]?.message).toContain('"metadata"');
    // In a batch, by index, and nothing of the batch is written.
    const batch = await send({
      receipts: [receipt("unknown-fields", "p1"), { ...receipt("unknown-fields", "p2"), pass_numbr: 2 }],
    });
    expectError(batch, 422, "validation_failed");
    expect([...issuePaths(batch)]).toEqual(["receipts.1.pass_numbr"]);
    expect(await tableFingerprint()).toBe(before);
    // What a client wants kept goes in metadata, and is stored with the pass.
    const kept = await send({ ...receipt("unknown-fields", "p1"), metadata: { tokens: 3 } });
    expect(kept.status, kept.text).toBe(201);
  });

  it("null and absent optional fields are the same receipt: a retry spelling them either way writes nothing", async () => {
    const plain = receipt("idem-null", "p1", { pass_number: 1 });
    expect((await send(plain)).status).toBe(201);
    const before = await tableFingerprint();
    const nulls = {
      input_content_hash: null,
      created_at: null,
      metadata: null,
      verdict: null,
      manifest_digest: null,
      content_class: null,
    };
    const retry = await send({ ...plain, ...nulls });
    expect(retry.status).toBe(200);
    expect(await tableFingerprint()).toBe(before);
  });

  it.each([
    ["another pass_number", { pass_number: 2 }],
    ["another size", { current_size_bytes: 1001 }],
    ["another density", { semantic_density_score: 0.46 }],
    ["other metadata", { metadata: { b: 2, a: [1, 2] } }],
    ["another created_at", { created_at: "2026-01-02T03:04:06.000Z" }],
    ["a client verdict", { verdict: "NO_RECURSIVE_COMPRESSION" }],
    ["another class", { content_class: "json" }],
  ])("the same key with %s is 409 and writes nothing", async (_name, change) => {
    const before = await tableFingerprint();
    const answer = await send({ ...r, ...change });
    expectError(answer, 409, "idempotency_conflict");
    expect(await tableFingerprint()).toBe(before);
  });

  it("a batch with one conflicting receipt is 409 and writes none of its new receipts", async () => {
    const before = await tableFingerprint();
    const answer = await send({
      receipts: [receipt("idem", "new-1"), { ...r, current_size_bytes: 5 }, receipt("idem-other", "new-2")],
    });
    const error = expectError(answer, 409, "idempotency_conflict");
    expect(error.issues?.map((i) => i.path)).toEqual(["receipts.1"]);
    expect(await tableFingerprint()).toBe(before);
  });

  it("a batch mixing stored and new receipts writes only the new ones and answers in input order", async () => {
    const before = await countRows();
    const answer = await send({
      receipts: [receipt("idem", "p9", { pass_number: 9 }), r, receipt("idem", "p8", { pass_number: 8 })],
    });
    expect(answer.status).toBe(201);
    expect(answer.body.results.map((x: { pass_id: string }) => x.pass_id)).toEqual(["p9", "p1", "p8"]);
    expect((await countRows()).passes).toBe(before.passes + 2);
    const retry = await send({
      receipts: [receipt("idem", "p9", { pass_number: 9 }), r, receipt("idem", "p8", { pass_number: 8 })],
    });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(answer.body);
    expect((await countRows()).passes).toBe(before.passes + 2);
  });

  it("the same key twice in one batch with the same body is stored once", async () => {
    const before = await countRows();
    const dup = receipt("dup-same", "p2");
    const answer = await send({ receipts: [dup, receipt("dup-same", "p3", { pass_number: 3 }), dup] });
    expect(answer.status).toBe(201);
    expect(answer.body.results).toHaveLength(3);
    expect(answer.body.results[2]).toEqual(answer.body.results[0]);
    expect((await countRows()).passes).toBe(before.passes + 2);
  });

  it("the same key twice in one batch with different bodies is 409 naming the second, and writes nothing", async () => {
    const before = await tableFingerprint();
    const answer = await send({
      receipts: [
        receipt("dup-diff", "p2"),
        receipt("dup-diff", "p3", { pass_number: 3 }),
        receipt("dup-diff", "p2", { current_size_bytes: 1 }),
      ],
    });
    const error = expectError(answer, 409, "idempotency_conflict");
    expect(error.issues?.map((i) => i.path)).toEqual(["receipts.2"]);
    expect(await tableFingerprint()).toBe(before);
  });
});

describe("POST /api/v1/passes: concurrency and range", () => {
  it("the same receipt sent 8 times at once is stored once; one answer is 201, the rest 200 with the same result", async () => {
    const before = await countRows();
    const r = receipt("race", "p2");
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(r)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    for (const a of answers) expect(a.body).toEqual(answers[0]?.body);
    expect((await countRows()).passes).toBe(before.passes + 1);
  });

  it("batches racing on the same chains stay consistent: every receipt stored once, the summary exact", async () => {
    const batches = Array.from({ length: 4 }, (_, b) =>
      Array.from({ length: 25 }, (_, i) => receipt(`race-${i % 5}`, `b${b}-p${i}`, { pass_number: b * 25 + i + 1 })),
    );
    const answers = await Promise.all(batches.map((receipts) => send({ receipts })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    for (let c = 0; c < 5; c++) {
      const detail = await chain(`race-${c}`);
      expect(detail.body.passes).toHaveLength(20);
    }
  });

  it("integers up to 2^53-1 are stored and read back exactly", async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const answer = await send(receipt("big-numbers", "p-max", { pass_number: max, current_size_bytes: max }));
    expect(answer.status).toBe(201);
    expect(answer.body.directive).toBe(`HALT: Pass ${max} > 4, use previous.`);
    const detail = await chain("big-numbers");
    expect(detail.body.passes[0]).toMatchObject({ pass_number: max, current_size_bytes: max });
  });
});

describe("POST /api/v1/passes: batches are all or nothing", () => {
  it("answers {results} in input order", async () => {
    const answer = await send({
      receipts: [
        receipt("batch", "b3", { pass_number: 3 }),
        receipt("batch", "b1", { pass_number: 1 }),
        receipt("batch", "b2"),
      ],
    });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(["results"]);
    expect(answer.body.results.map((x: { pass_id: string }) => x.pass_id)).toEqual(["b3", "b1", "b2"]);
    expect(answer.body.results[1].verdict).toBe("NO_RECURSIVE_COMPRESSION");
  });

  it("one bad item fails the batch with 422 naming each bad index, and nothing is written", async () => {
    const before = await tableFingerprint();
    const answer = await send({
      receipts: [
        receipt("bad-batch", "ok-1"),
        { ...receipt("bad-batch", "x"), pass_number: -1 },
        receipt("bad-batch", "ok-2", { pass_number: 3 }),
        { ...receipt("bad-batch", "y"), semantic_density_score: 1.01, is_parseable: 1 },
        { ...receipt("bad-batch", "z"), chain_id: undefined },
      ],
    });
    const error = expectError(answer, 422, "validation_failed");
    expect([...issuePaths(answer)].sort()).toEqual([
      "receipts.1.pass_number",
      "receipts.3.is_parseable",
      "receipts.3.semantic_density_score",
      "receipts.4.chain_id",
    ]);
    expect(error.message).toMatch(/3 of 5/);
    expect(await tableFingerprint()).toBe(before);
  });

  // 3,000 receipts on 30 chains, 100 passes each.
  const large = (prefix: string) =>
    Array.from({ length: 3_000 }, (_, i) =>
      receipt(`${prefix}-${i % 30}`, `p-${i}`, { pass_number: Math.floor(i / 30) + 1 }),
    );

  it("a large batch with stored receipts deep inside writes only the new ones, in input order", async () => {
    const many = large("slices");
    const stored = await send({ receipts: many.slice(2_500, 2_503) });
    expect(stored.status).toBe(201);
    const before = await countRows();
    const answer = await send({ receipts: many });
    expect(answer.status).toBe(201);
    expect(answer.body.results.map((x: { pass_id: string }) => x.pass_id)).toEqual(many.map((x) => x.pass_id));
    expect(answer.body.results.slice(2_500, 2_503)).toEqual(stored.body.results);
    const after = await countRows();
    expect(after.passes).toBe(before.passes + 2_997);
    expect(after.chains).toBe(before.chains + 30 - 3);
    const detail = await chain("slices-7");
    expect(detail.body.passes).toHaveLength(100);
  });

  it("a large batch conflicting with a stored receipt deep inside is 409 and writes none of it", async () => {
    const many = large("slices-conflict");
    expect((await send(many[2_600])).status).toBe(201);
    const before = await tableFingerprint();
    const answer = await send({
      receipts: many.map((x, i) => (i === 2_600 ? { ...x, current_size_bytes: 7 } : x)),
    });
    const error = expectError(answer, 409, "idempotency_conflict");
    expect(error.issues?.map((i) => i.path)).toEqual(["receipts.2600"]);
    expect(await tableFingerprint()).toBe(before);
  });

  it("takes 5,000 receipts in one batch and refuses 5,001 without writing", async () => {
    const many = Array.from({ length: 5_000 }, (_, i) =>
      receipt(`big-${i % 50}`, `p-${i}`, { pass_number: Math.floor(i / 50) + 1 }),
    );
    const before = await countRows();
    const ok = await send({ receipts: many });
    expect(ok.status).toBe(201);
    expect(ok.body.results).toHaveLength(5_000);
    const after = await countRows();
    expect(after.passes).toBe(before.passes + 5_000);
    expect(after.chains).toBe(before.chains + 50);

    const fingerprint = await tableFingerprint();
    const tooMany = await send({ receipts: [...many, receipt("big-x", "p-x")] });
    expectError(tooMany, 422, "validation_failed");
    expect(issuePaths(tooMany)).toEqual(["receipts"]);
    expect(await tableFingerprint()).toBe(fingerprint);
  });

  it.each([
    [{ receipts: [] }, "an empty batch"],
    [{ receipts: {} }, "receipts as an object"],
    [{ receipts: "x" }, "receipts as a string"],
    [{ receipts: null }, "receipts as null"],
  ] as Array<[unknown, string]>)("refuses %j (%s) with 422", async (body) => {
    const before = await countRows();
    expectError(await send(body), 422, "validation_failed");
    expect(await countRows()).toEqual(before);
  });
});
