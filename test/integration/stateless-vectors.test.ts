// The reference vectors through the two stateless endpoints, and proof they store nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { POST as evaluate } from "@/app/api/v1/evaluate/route";
import { POST as compress } from "@/app/api/v1/traces/compress/route";
import { setUpTestDatabase } from "../support/database";
import { countRows, expectError, guardVectors, issuePaths, post, tableFingerprint, traceVectors } from "./api-helpers";

setUpTestDatabase();

const guard = guardVectors();
const traces = traceVectors();
let before: string;

beforeAll(async () => {
  before = await tableFingerprint();
});

describe("POST /api/v1/evaluate", () => {
  it.each(guard.map((c, i) => [i, c] as const))("guard vector %i, single", async (_i, c) => {
    const answer = await post(evaluate, "/api/v1/evaluate", { pass: c.pass, policy: c.policy });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.body).toEqual(c.expect);
  });

  it("every guard vector as one array, answered in input order", async () => {
    const answer = await post(
      evaluate,
      "/api/v1/evaluate",
      guard.map((c) => ({ pass: c.pass, policy: c.policy })),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(guard.map((c) => c.expect));
  });

  it("takes 10,000 items and refuses 10,001", async () => {
    const item = { pass: guard[0]?.pass, policy: guard[0]?.policy };
    const ok = await post(
      evaluate,
      "/api/v1/evaluate",
      Array.from({ length: 10_000 }, () => item),
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveLength(10_000);
    const tooMany = await post(
      evaluate,
      "/api/v1/evaluate",
      Array.from({ length: 10_001 }, () => item),
    );
    expectError(tooMany, 422, "validation_failed");
  });

  it("names every bad item of an array by index", async () => {
    const good = { pass: guard[0]?.pass, policy: guard[0]?.policy };
    const answer = await post(evaluate, "/api/v1/evaluate", [
      good,
      { ...good, pass: { ...good.pass, pass_number: -1 } },
      good,
      { ...good, policy: { ...good.policy, min_semantic_density: 2 } },
    ]);
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["1.pass.pass_number", "3.policy.min_semantic_density"]);
  });

  it("ignores unknown fields", async () => {
    const c = guard[1];
    const answer = await post(evaluate, "/api/v1/evaluate", {
      pass: { ...c?.pass, extra: [1] },
      policy: c?.policy,
      note: "x",
    });
    expect(answer.body).toEqual(c?.expect);
  });
});

describe("POST /api/v1/traces/compress", () => {
  it("has failing and passing vectors", () => {
    expect(traces.filter((t) => "error" in t.expect).length).toBeGreaterThan(0);
  });

  it.each(traces.map((c, i) => [i, c] as const))("trace vector %i", async (_i, c) => {
    const answer = await post(compress, "/api/v1/traces/compress", { nodes: c.nodes });
    if ("error" in c.expect) {
      const error = expectError(answer, 422, "missing_verification_receipt") as unknown as {
        node_id: string;
        message: string;
      };
      expect(error.node_id).toBe(c.expect.node_id);
      expect(error.message).toContain(c.expect.node_id);
    } else {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(c.expect);
    }
  });

  it("a missing verification_receipt field counts as null and fails closed", async () => {
    const answer = await post(compress, "/api/v1/traces/compress", {
      nodes: [{ node_id: "n1", node_type: "VERIFIED_CONCLUSION", content: "x" }],
    });
    const error = expectError(answer, 422, "missing_verification_receipt") as unknown as { node_id: string };
    expect(error.node_id).toBe("n1");
  });

  it("an empty trace is the EMPTY digest", async () => {
    const answer = await post(compress, "/api/v1/traces/compress", { nodes: [] });
    expect(answer.body).toEqual({
      conclusions: [],
      eviction_boundary_index: 0,
      residual_digest: "cc1d2f838445db7aec431df9ee8a871f40e7aa5e064fc056633ef8c60fab7b06",
    });
  });

  it("refuses bad node types and non-string content", async () => {
    const answer = await post(compress, "/api/v1/traces/compress", {
      nodes: [
        { node_id: "a", node_type: "GUESS", content: "x" },
        { node_id: "b", node_type: "FALSIFIED_PATH", content: 1 },
        { node_id: "c", node_type: "FALSIFIED_PATH", content: "x", verification_receipt: 5 },
      ],
    });
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["nodes.0.node_type", "nodes.1.content", "nodes.2.verification_receipt"]);
  });
});

describe("stateless", () => {
  it("wrote nothing at all", async () => {
    expect(await tableFingerprint()).toBe(before);
    expect(await countRows()).toEqual({
      passes: 0,
      boundaries: 0,
      chains: 0,
      policies: 0,
      traces: 0,
      trace_rejections: 0,
    });
  });
});
