import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@/lib/guard/hash";
import { compressRequestSchema } from "@/lib/schemas/traces";
import {
  compressTrace,
  compressTraceWithStats,
  MissingVerificationReceiptError,
  type ReasoningNode,
} from "@/lib/traces/trace";

interface TraceCase {
  nodes: ReasoningNode[];
  expect:
    | { conclusions: unknown[]; eviction_boundary_index: number; residual_digest: string }
    | { error: "missing_verification_receipt"; node_id: string; message: string };
}

const cases: TraceCase[] = JSON.parse(readFileSync(path.join(__dirname, "../fixtures/trace-public.json"), "utf8"));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("trace compressor: public reference vectors", () => {
  it("has the vectors, both kinds", () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
    expect(cases.some((c) => "error" in c.expect)).toBe(true);
    expect(cases.some((c) => "residual_digest" in c.expect)).toBe(true);
  });

  it.each(cases.map((c, i) => [i, c] as const))("case %i", (_i, c) => {
    // Through the wire schema first, as the API does.
    const { nodes } = compressRequestSchema.parse({ nodes: c.nodes });
    if ("error" in c.expect) {
      const error = thrown(() => compressTrace(nodes));
      expect(error).toBeInstanceOf(MissingVerificationReceiptError);
      expect((error as MissingVerificationReceiptError).nodeId).toBe(c.expect.node_id);
      expect((error as Error).message).toContain(c.expect.node_id);
      expect(nodes[(error as MissingVerificationReceiptError).nodeIndex]?.node_id).toBe(c.expect.node_id);
    } else {
      expect(compressTrace(nodes)).toEqual(c.expect);
    }
  });
});

const node = (
  node_type: ReasoningNode["node_type"],
  content: string,
  verification_receipt: string | null,
  node_id = "n",
): ReasoningNode => ({
  node_id,
  node_type,
  content,
  verification_receipt,
});

/** The reference's digest payload: json.dumps(..., sort_keys=True, separators=(",", ":")). */
const digestOf = (payload: string) => sha256Hex(payload);

describe("trace compressor semantics", () => {
  it("an empty trace is sha256('EMPTY') with boundary 0", () => {
    expect(sha256Hex("EMPTY")).toBe("cc1d2f838445db7aec431df9ee8a871f40e7aa5e064fc056633ef8c60fab7b06");
    expect(compressTrace([])).toEqual({
      conclusions: [],
      eviction_boundary_index: 0,
      residual_digest: sha256Hex("EMPTY"),
    });
  });

  it("chatter alone is EMPTY, but the boundary still counts every node", () => {
    const r = compressTrace([node("EXPLORATORY_CHATTER", "a", null), node("EXPLORATORY_CHATTER", "b", "x")]);
    expect(r).toEqual({ conclusions: [], eviction_boundary_index: 2, residual_digest: sha256Hex("EMPTY") });
  });

  it("a FALSIFIED_PATH without a receipt is omitted; an empty-string receipt too", () => {
    const r = compressTraceWithStats([node("FALSIFIED_PATH", "a", null), node("FALSIFIED_PATH", "b", "")]);
    expect(r.residual.residual_digest).toBe(sha256Hex("EMPTY"));
    expect(r.stats.omittedFalsifiedPaths).toBe(2);
  });

  it("a whitespace-only receipt on a FALSIFIED_PATH is truthy: recorded as 'x -> '", () => {
    const r = compressTrace([node("FALSIFIED_PATH", " x ", " \t")]);
    expect(r.conclusions).toEqual([]);
    expect(r.residual_digest).toBe(digestOf('{"axioms":[],"invalidations":["x -> "]}'));
  });

  it.each([null, "", "   ", "\u001c\u0085\u3000"])("a VERIFIED_CONCLUSION with receipt %j fails closed", (receipt) => {
    const error = thrown(() =>
      compressTrace([
        node("EXPLORATORY_CHATTER", "c", null, "a"),
        node("VERIFIED_CONCLUSION", "claim", receipt, "bad-node"),
      ]),
    );
    expect(error).toBeInstanceOf(MissingVerificationReceiptError);
    expect(error).toMatchObject({ nodeId: "bad-node", nodeIndex: 1 });
  });

  it("a receipt of only U+FEFF is not whitespace in Python: the conclusion is kept", () => {
    const r = compressTrace([node("VERIFIED_CONCLUSION", "c", "\ufeff")]);
    expect(r.conclusions).toEqual([{ axiom: "c", proof_receipt: "\ufeff", invalidated_paths: [] }]);
  });

  it("fails closed at the first bad conclusion even after good ones", () => {
    const error = thrown(() =>
      compressTrace([
        node("VERIFIED_CONCLUSION", "ok", "r", "first"),
        node("VERIFIED_CONCLUSION", "no", null, "second"),
        node("VERIFIED_CONCLUSION", "no", null, "third"),
      ]),
    );
    expect(error).toMatchObject({ nodeId: "second", nodeIndex: 1 });
  });

  it("dedupes invalidations, keeps every axiom in order, and sorts paths by code point", () => {
    const r = compressTrace([
      node("FALSIFIED_PATH", "\u{1F600} path", "E1"),
      node("VERIFIED_CONCLUSION", " B ", " r1 "),
      node("FALSIFIED_PATH", "\uff5e path", "E2"),
      node("FALSIFIED_PATH", "  \u{1F600} path\n", "E1 "),
      node("VERIFIED_CONCLUSION", "A", "r2"),
      node("VERIFIED_CONCLUSION", "B", "r1"),
      node("EXPLORATORY_CHATTER", "noise", null),
    ]);
    const paths = ["\uff5e path -> E2", "\u{1F600} path -> E1"];
    expect(r).toEqual({
      conclusions: [
        { axiom: "B", proof_receipt: "r1", invalidated_paths: paths },
        { axiom: "A", proof_receipt: "r2", invalidated_paths: paths },
        { axiom: "B", proof_receipt: "r1", invalidated_paths: paths },
      ],
      eviction_boundary_index: 7,
      residual_digest: digestOf(
        '{"axioms":["B","A","B"],"invalidations":["\\uff5e path -> E2","\\ud83d\\ude00 path -> E1"]}',
      ),
    });
  });

  it("strips with Python's whitespace set, not JavaScript's", () => {
    const r = compressTrace([node("VERIFIED_CONCLUSION", "\u001fX\u0085", "\ufeffR\ufeff")]);
    expect(r.conclusions[0]).toEqual({ axiom: "X", proof_receipt: "\ufeffR\ufeff", invalidated_paths: [] });
    expect(r.residual_digest).toBe(digestOf('{"axioms":["X"],"invalidations":[]}'));
  });

  it("escapes control characters, DEL, quotes and backslashes in the digest payload", () => {
    const r = compressTrace([node("VERIFIED_CONCLUSION", 'a"b\\c\u007f\u0001\u00e9', "r")]);
    expect(r.residual_digest).toBe(digestOf('{"axioms":["a\\"b\\\\c\\u007f\\u0001\\u00e9"],"invalidations":[]}'));
  });

  it("counts pruned chatter and omitted paths, and returns the sorted invalidations", () => {
    const r = compressTraceWithStats([
      node("EXPLORATORY_CHATTER", "a", null),
      node("FALSIFIED_PATH", "b", null),
      node("FALSIFIED_PATH", "z", "e"),
      node("FALSIFIED_PATH", "c", "e"),
    ]);
    expect(r.stats).toEqual({ prunedChatter: 1, omittedFalsifiedPaths: 1 });
    expect(r.invalidations).toEqual(["c -> e", "z -> e"]);
    expect(r.residual.conclusions).toEqual([]);
  });

  it("returns a fresh invalidated_paths array per conclusion", () => {
    const r = compressTrace([
      node("FALSIFIED_PATH", "p", "e"),
      node("VERIFIED_CONCLUSION", "a", "r"),
      node("VERIFIED_CONCLUSION", "b", "r"),
    ]);
    r.conclusions[0]?.invalidated_paths.push("mutated");
    expect(r.conclusions[1]?.invalidated_paths).toEqual(["p -> e"]);
  });
});
