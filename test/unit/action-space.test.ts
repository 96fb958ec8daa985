import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildActionSpace,
  constraintKey,
  invalidationPathKeys,
  nodeOutcomes,
  parseInvalidation,
  type TraceConstraints,
} from "@/lib/traces/action-space";
import { compressRequestSchema } from "@/lib/schemas/traces";
import { compressTraceWithStats, type ReasoningNode } from "@/lib/traces/trace";

interface Vector {
  nodes: ReasoningNode[];
  expect: { conclusions: unknown[] } | { error: string; node_id: string };
}

const vectors: Vector[] = JSON.parse(readFileSync(path.join(__dirname, "../fixtures/trace-public.json"), "utf8"));

const trace = (
  trace_id: string,
  created_at: string,
  axioms: Array<[string, string]>,
  invalidated_paths: string[],
): TraceConstraints => ({
  trace_id,
  created_at,
  conclusions: axioms.map(([axiom, proof_receipt]) => ({ axiom, proof_receipt })),
  invalidated_paths,
});

describe("the matching rule", () => {
  it("folds case and whitespace, and composes accents, but nothing else", () => {
    expect(constraintKey("  Path Y\n\tis   READ-ONLY ")).toBe("path y is read-only");
    expect(constraintKey("caf\u0065\u0301 open")).toBe(constraintKey("caf\u00e9 open"));
    expect(constraintKey("Path\u00a0Y")).toBe("path y");
    expect(constraintKey("Path Y is read-only")).not.toBe(constraintKey("Path Y is read only"));
    expect(constraintKey("Path Y is read-only.")).not.toBe(constraintKey("Path Y is read-only"));
  });

  it("reads an invalidation at its first separator, and offers every possible path for conflicts", () => {
    expect(parseInvalidation("API key in query -> HTTP 401")).toEqual({
      path: "API key in query",
      receipt: "HTTP 401",
    });
    expect(parseInvalidation(" -> exit 1")).toEqual({ path: "", receipt: "exit 1" });
    expect(parseInvalidation("mount /data -> ")).toEqual({ path: "mount /data", receipt: "" });
    expect(invalidationPathKeys("POST /a -> /b redirect -> HTTP 500")).toEqual(["post /a", "post /a -> /b redirect"]);
    expect(invalidationPathKeys("x -> x -> y")).toEqual(["x", "x -> x"]);
  });
});

describe("node outcomes mirror the compressor on every public vector", () => {
  it.each(vectors.map((v, i) => [i, v] as const))("vector %i", (_i, v) => {
    const { nodes } = compressRequestSchema.parse({ nodes: v.nodes });
    const outcomes = nodeOutcomes(nodes);
    if ("error" in v.expect) {
      const first = outcomes.findIndex((o) => o.fate === "rejected");
      expect(nodes[first]?.node_id).toBe(v.expect.node_id);
      return;
    }
    const { residual, invalidations, stats } = compressTraceWithStats(nodes);
    expect(outcomes.filter((o) => o.fate === "axiom").map((o) => o.produced)).toEqual(
      residual.conclusions.map((c) => c.axiom),
    );
    const produced = outcomes.filter((o) => o.fate === "invalidation").map((o) => o.produced!);
    expect([...new Set(produced)].sort()).toEqual([...invalidations].sort());
    expect(outcomes.filter((o) => o.fate === "invalidation" && !o.duplicate)).toHaveLength(invalidations.length);
    expect(outcomes.filter((o) => o.fate === "omitted")).toHaveLength(stats.omittedFalsifiedPaths);
    expect(outcomes.filter((o) => o.fate === "pruned")).toHaveLength(stats.prunedChatter);
  });

  it("follows the reference's receipt rules: truthy for falsified paths, stripped for conclusions", () => {
    const outcomes = nodeOutcomes([
      { node_id: "a", node_type: "FALSIFIED_PATH", content: " p ", verification_receipt: "  " },
      { node_id: "b", node_type: "FALSIFIED_PATH", content: "q", verification_receipt: "" },
      { node_id: "c", node_type: "VERIFIED_CONCLUSION", content: "r", verification_receipt: " \t" },
      { node_id: "d", node_type: "FALSIFIED_PATH", content: "p", verification_receipt: " " },
    ]);
    expect(outcomes).toEqual([
      { fate: "invalidation", produced: "p -> ", duplicate: false },
      { fate: "omitted", produced: null, duplicate: false },
      { fate: "rejected", produced: null, duplicate: false },
      { fate: "invalidation", produced: "p -> ", duplicate: true },
    ]);
  });
});

describe("buildActionSpace", () => {
  it("dedupes across traces, oldest wording first, and lists every trace and receipt that established a constraint", () => {
    const space = buildActionSpace([
      trace(
        "t2",
        "2026-10-25T10:00:01.000Z",
        [["the API needs  BEARER auth", "HTTP 200 again"]],
        ["Query key -> HTTP 403"],
      ),
      trace(
        "t1",
        "2026-10-25T10:00:00.000Z",
        [
          ["The API needs Bearer auth", "HTTP 200"],
          ["Cache is cold", "miss ratio 1.0"],
        ],
        ["Query key -> HTTP 401", "Basic auth -> HTTP 401"],
      ),
      trace("t3", "2026-10-25T10:00:01.000Z", [["The API needs Bearer auth", "HTTP 200"]], []),
    ]);
    expect(space.axioms).toEqual([
      {
        key: "the api needs bearer auth",
        axiom: "The API needs Bearer auth",
        established_by: [
          { trace_id: "t1", created_at: "2026-10-25T10:00:00.000Z", receipt: "HTTP 200" },
          { trace_id: "t2", created_at: "2026-10-25T10:00:01.000Z", receipt: "HTTP 200 again" },
          { trace_id: "t3", created_at: "2026-10-25T10:00:01.000Z", receipt: "HTTP 200" },
        ],
        conflicts_with: [],
      },
      {
        key: "cache is cold",
        axiom: "Cache is cold",
        established_by: [{ trace_id: "t1", created_at: "2026-10-25T10:00:00.000Z", receipt: "miss ratio 1.0" }],
        conflicts_with: [],
      },
    ]);
    expect(space.forbidden.map((f) => [f.path, f.established_by.map((e) => `${e.trace_id}:${e.receipt}`)])).toEqual([
      ["Query key", ["t1:HTTP 401", "t2:HTTP 403"]],
      ["Basic auth", ["t1:HTTP 401"]],
    ]);
    expect(space.conflicts).toEqual([]);
  });

  it("flags an axiom that another trace falsifies, on both sides", () => {
    const space = buildActionSpace([
      trace("a", "2026-10-25T10:00:00.000Z", [["/var/cache is read-only", "EROFS"]], []),
      trace(
        "b",
        "2026-10-25T10:00:02.000Z",
        [["Retries are safe", "idempotency key honoured"]],
        ["/VAR/CACHE is  read-only -> touch exit 0"],
      ),
      trace(
        "c",
        "2026-10-25T10:00:03.000Z",
        [],
        ["/var/cache is read-only -> write succeeded", "/var/cache is read-only. -> unrelated"],
      ),
    ]);
    expect(space.conflicts).toEqual([
      {
        axiom_key: "/var/cache is read-only",
        forbidden_key: "/var/cache is read-only",
        axiom: "/var/cache is read-only",
        invalidation: "/VAR/CACHE is  read-only -> touch exit 0",
        axiom_trace_ids: ["a"],
        falsifying_trace_ids: ["b", "c"],
        within_trace: false,
      },
    ]);
    expect(space.axioms.find((a) => a.key === "/var/cache is read-only")!.conflicts_with).toEqual([
      "/var/cache is read-only",
    ]);
    expect(space.axioms.find((a) => a.key === "retries are safe")!.conflicts_with).toEqual([]);
    expect(space.forbidden.map((f) => [f.key, f.conflicts_with.length])).toEqual([
      ["/var/cache is read-only", 1],
      ["/var/cache is read-only.", 0],
    ]);
  });

  it("flags a trace that contradicts itself, and a path whose own text holds the separator", () => {
    const space = buildActionSpace([
      trace("self", "2026-10-25T10:00:00.000Z", [["Use mirror A", "sha256 ok"]], ["Use mirror A -> sha256 mismatch"]),
      trace("arrow", "2026-10-25T10:00:01.000Z", [["POST /a -> /b redirects", "HTTP 307"]], []),
      trace("later", "2026-10-25T10:00:02.000Z", [], ["POST /a -> /b redirects -> HTTP 200 without Location"]),
    ]);
    expect(space.conflicts.map((c) => [c.axiom, c.falsifying_trace_ids, c.within_trace])).toEqual([
      ["Use mirror A", ["self"], true],
      ["POST /a -> /b redirects", ["later"], false],
    ]);
  });

  it("is empty for no traces, and for traces that established nothing", () => {
    expect(buildActionSpace([])).toEqual({ axioms: [], forbidden: [], conflicts: [] });
    expect(buildActionSpace([trace("x", "2026-10-25T10:00:00.000Z", [], [])])).toEqual({
      axioms: [],
      forbidden: [],
      conflicts: [],
    });
  });
});
