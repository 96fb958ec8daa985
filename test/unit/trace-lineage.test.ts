// The lineage rule on its own: which successor texts meet which ancestor walls, and where the
// matching stops (docs/lineage.md).
import { describe, expect, it } from "vitest";
import { LINEAGE_MAX_FINDINGS, type LineageAncestor, lineageFindings, nodeKeysOf } from "@/lib/traces/lineage";

const ancestor = (over: Partial<LineageAncestor> = {}): LineageAncestor => ({
  trace_id: "a",
  depth: 1,
  conclusions: [{ axiom: "The cache key omits the tenant", proof_receipt: "test_tenant_key failed before the fix" }],
  invalidated_paths: ["Bump the TTL -> ttl=600 still serves stale rows", "Use a -> b mapping -> mapping test failed"],
  ...over,
});

const successor = (nodes: Array<[id: string, type: string, content: string]>, invalidated: string[] = []) => ({
  trace_id: "s",
  node_keys: nodeKeysOf(nodes.map(([node_id, node_type, content]) => ({ node_id, node_type, content }))),
  invalidated_paths: invalidated,
});

describe("lineage findings", () => {
  it("counts one wording once, naming its first node", () => {
    const keys = nodeKeysOf([
      { node_id: "1", node_type: "EXPLORATORY_CHATTER", content: "bump the ttl" },
      { node_id: "2", node_type: "FALSIFIED_PATH", content: "  Bump  the\tTTL " },
    ]);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ node_id: "1", count: 2 });
  });

  it("finds a node on a ruled-out path, whatever its type, with the ancestor's receipt", () => {
    const findings = lineageFindings(successor([["n7", "VERIFIED_CONCLUSION", "BUMP the TTL"]]), [ancestor()]);
    expect(findings).toEqual([
      expect.objectContaining({
        kind: "wall_reexplored",
        node_id: "n7",
        ancestor_text: "Bump the TTL",
        ancestor_receipt: "ttl=600 still serves stale rows",
      }),
    ]);
  });

  it("reads a path that itself contains the separator", () => {
    const findings = lineageFindings(successor([["n1", "EXPLORATORY_CHATTER", "use a -> b mapping"]]), [ancestor()]);
    expect(findings).toEqual([
      expect.objectContaining({ ancestor_text: "Use a -> b mapping", ancestor_receipt: "mapping test failed" }),
    ]);
  });

  it("finds an invalidation of the successor that is an ancestor's axiom", () => {
    const findings = lineageFindings(
      successor([], ["the cache key omits the tenant -> keys include tenant_id in prod"]),
      [ancestor()],
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: "axiom_contradicted",
        successor_text: "the cache key omits the tenant -> keys include tenant_id in prod",
        ancestor_text: "The cache key omits the tenant",
        ancestor_receipt: "test_tenant_key failed before the fix",
      }),
    ]);
  });

  it("stops at the rule: paraphrase, negation and agreement are not findings", () => {
    const findings = lineageFindings(
      successor(
        [
          ["n1", "EXPLORATORY_CHATTER", "Increase the TTL"],
          ["n2", "EXPLORATORY_CHATTER", "Bump the TTL."],
          ["n3", "VERIFIED_CONCLUSION", "The cache key omits the tenant"],
        ],
        ["The cache key does not omit the tenant -> saw tenant_id"],
      ),
      [ancestor()],
    );
    expect(findings).toEqual([]);
  });

  it("keeps at most LINEAGE_MAX_FINDINGS per trace, nearer ancestors first", () => {
    const walls = Array.from({ length: 40 }, (_, i) => `Try fix ${i} -> test ${i} failed`);
    const nodes = walls.map((_, i): [string, string, string] => [`n${i}`, "EXPLORATORY_CHATTER", `try fix ${i}`]);
    const line = Array.from({ length: 8 }, (_, d) =>
      ancestor({ trace_id: `a${d + 1}`, depth: d + 1, invalidated_paths: walls, conclusions: [] }),
    );
    const findings = lineageFindings(successor(nodes), line);
    expect(findings).toHaveLength(LINEAGE_MAX_FINDINGS);
    expect(findings[0]?.ancestor_trace_id).toBe("a1");
    expect(findings.some((f) => f.ancestor_trace_id === "a8")).toBe(false);
  });
});
