import { describe, expect, it } from "vitest";
import { POST as postBoundaries } from "@/app/api/v1/boundaries/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, countRows, expectError, issuePaths, post, tableFingerprint } from "./api-helpers";

setUpTestDatabase();

const send = (body: unknown) => post(postBoundaries, "/api/v1/boundaries", body);
const chain = (chainId: string) =>
  call(getChain, jsonRequest(`/api/v1/chains/${chainId}`), params({ chain_id: chainId }));

const halt = { chain_id: "b-chain", pass_number: 4, strategy: "halt", reason: "density floor reached" };
const restore = {
  chain_id: "b-chain",
  pass_number: 5,
  strategy: "restore",
  reason: "unparseable",
  restore_pass_id: "p3",
};
const acceptLoss = {
  chain_id: "b-chain",
  pass_number: 6,
  strategy: "accept_loss",
  reason: "summary is enough here",
  relaxed_policy: { min_size_bytes: 0, min_semantic_density: 0.1, max_pass_number: 9 },
};

describe("POST /api/v1/boundaries", () => {
  it("stores a boundary and answers it with 201", async () => {
    await post(postPasses, "/api/v1/passes", {
      chain_id: "b-chain",
      pass_id: "p3",
      pass_number: 3,
      current_content_hash: "h3",
      current_size_bytes: 900,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9,
    });
    const answer = await send(halt);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ ...halt, restore_pass_id: null, relaxed_policy: null });
    expect(Date.parse(answer.body.created_at)).not.toBeNaN();
  });

  it("restore needs restore_pass_id; with it the boundary is stored", async () => {
    const { restore_pass_id: _omit, ...noTarget } = restore;
    const before = await countRows();
    const refused = await send(noTarget);
    expectError(refused, 422, "validation_failed");
    expect(issuePaths(refused)).toEqual(["restore_pass_id"]);
    expect(await countRows()).toEqual(before);

    const answer = await send(restore);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject(restore);
  });

  it("accept_loss keeps the deliberately relaxed floor", async () => {
    const answer = await send(acceptLoss);
    expect(answer.status).toBe(201);
    expect(answer.body.relaxed_policy).toEqual(acceptLoss.relaxed_policy);
  });

  it("a retry returns the stored boundary with 200 and writes nothing", async () => {
    const before = await tableFingerprint();
    const retry = await send({ ...restore, relaxed_policy: null, extra: "ignored" });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject(restore);
    expect(await tableFingerprint()).toBe(before);
  });

  it.each([
    ["another reason", { ...halt, reason: "other" }],
    ["another strategy", { ...halt, strategy: "restore", restore_pass_id: "p3" }],
    ["another relaxed floor", { ...acceptLoss, relaxed_policy: { min_size_bytes: 1 } }],
  ])("the same (chain_id, pass_number) with %s is 409 and writes nothing", async (_name, body) => {
    const before = await tableFingerprint();
    expectError(await send(body), 409, "idempotency_conflict");
    expect(await tableFingerprint()).toBe(before);
  });

  it("the chain shows its boundaries in pass order, and the summary counts them", async () => {
    const detail = await chain("b-chain");
    expect(detail.status).toBe(200);
    expect(
      detail.body.boundaries.map((b: { pass_number: number; strategy: string }) => [b.pass_number, b.strategy]),
    ).toEqual([
      [4, "halt"],
      [5, "restore"],
      [6, "accept_loss"],
    ]);
    const list = await call(listChains, jsonRequest("/api/v1/chains?q=b-chain"));
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toMatchObject({ chain_id: "b-chain", boundary_count: 3, pass_count: 1 });
  });

  it("a boundary on a chain with no passes still makes the chain visible", async () => {
    expect((await send({ ...halt, chain_id: "b-only" })).status).toBe(201);
    const detail = await chain("b-only");
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ chain_id: "b-only", passes: [], collapse_point: null, integrity: [] });
    expect(detail.body.boundaries).toHaveLength(1);
  });
});

describe("POST /api/v1/boundaries: batches", () => {
  const item = (passNumber: number, extra: Record<string, unknown> = {}) => ({
    chain_id: "b-batch",
    pass_number: passNumber,
    strategy: "halt",
    reason: `r${passNumber}`,
    ...extra,
  });

  it("answers {results} in input order", async () => {
    const answer = await send({ boundaries: [item(3), item(1), item(2)] });
    expect(answer.status).toBe(201);
    expect(answer.body.results.map((b: { pass_number: number }) => b.pass_number)).toEqual([3, 1, 2]);
  });

  it("a repeated key with the same body inside a batch is stored once", async () => {
    const before = await countRows();
    const answer = await send({ boundaries: [item(7), item(7)] });
    expect(answer.status).toBe(201);
    expect(answer.body.results).toHaveLength(2);
    expect((await countRows()).boundaries).toBe(before.boundaries + 1);
  });

  it("a repeated key with different bodies is 409 naming the second, and writes nothing", async () => {
    const before = await tableFingerprint();
    const answer = await send({ boundaries: [item(8), item(9), item(8, { reason: "changed" })] });
    const error = expectError(answer, 409, "idempotency_conflict");
    expect(error.issues?.map((i) => i.path)).toEqual(["boundaries.2"]);
    expect(await tableFingerprint()).toBe(before);
  });

  it("a conflict with a stored boundary fails the whole batch", async () => {
    const before = await tableFingerprint();
    expectError(await send({ boundaries: [item(10), item(3, { reason: "changed" })] }), 409, "idempotency_conflict");
    expect(await tableFingerprint()).toBe(before);
  });

  it("one invalid item fails the batch with 422 naming it, and nothing is written", async () => {
    const before = await tableFingerprint();
    const answer = await send({
      boundaries: [item(11), item(12, { strategy: "restore" }), item(13, { pass_number: -1 })],
    });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["boundaries.1.restore_pass_id", "boundaries.2.pass_number"]);
    expect(await tableFingerprint()).toBe(before);
  });

  it("an empty batch is 422", async () => {
    expectError(await send({ boundaries: [] }), 422, "validation_failed");
  });
});
