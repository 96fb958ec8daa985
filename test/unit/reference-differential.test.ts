// Differential test against the reference Python itself, which is not part of the repository
// (FLOORLINE_REFERENCE_DIR names its folder; without it the test says why and skips): the
// code blocks of its collapse guard and trace compressor are extracted at test time and run
// by python3 on thousands of generated cases (tricky floats, unicode ids, Python-only
// whitespace), and every answer must equal the TypeScript port's.
// Set FLOORLINE_DIFF_SEED to replay a run; the seed is in the test names.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../support/random";
import {
  evaluatePass,
  type CompressionManifest,
  type CompressionPass,
  type CompressionPolicy,
} from "@/lib/guard/guard";
import { compareCodePoints, pyFormatFixed, pyJsonString, pyStrip } from "@/lib/guard/python";
import {
  compressTrace,
  MissingVerificationReceiptError,
  NODE_TYPES,
  type CompressedResidual,
  type ReasoningNode,
} from "@/lib/traces/trace";
import { at } from "../support/at";

const REFERENCE_DIR = process.env.FLOORLINE_REFERENCE_DIR ?? path.resolve(__dirname, "../../../shared/reference");
const SEED = Number(process.env.FLOORLINE_DIFF_SEED ?? Date.now() % 2 ** 31);

function unavailableReason(): string | null {
  if (
    !existsSync(path.join(REFERENCE_DIR, "collapse-guard.txt")) ||
    !existsSync(path.join(REFERENCE_DIR, "trace-compression.txt"))
  ) {
    return `no reference folder at ${REFERENCE_DIR}`;
  }
  const probe = spawnSync("python3", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return "python3 is not available";
  // The references annotate with `str | None`, which Python evaluates from 3.10 on.
  const recent = spawnSync("python3", ["-c", "import sys; sys.exit(sys.version_info < (3, 10))"]);
  if (recent.status !== 0) return `python3 is older than 3.10 (${probe.stdout.trim()})`;
  return null;
}
const skipReason = unavailableReason();
if (skipReason) console.warn(`[reference-differential] skipped: ${skipReason}`);

/** The Python of a reference document: everything from its first import line. */
function pythonOf(file: string): string {
  const text = readFileSync(path.join(REFERENCE_DIR, file), "utf8");
  const start = text.search(/^(from \w+ import|import \w+)/m);
  if (start < 0) throw new Error(`no Python code found in ${file}`);
  return text.slice(start);
}

// Each reference runs in a namespace of its own: both define their own dataclasses.
const DRIVER = String.raw`
import json, sys
guard, trace = {}, {}
exec(sys.argv[1], guard)
exec(sys.argv[2], trace)
req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
out = {"guard": [], "trace": [], "fixed": [], "strings": [], "sorted": [], "strip": []}
for item in req["guard"]:
    m = guard["RecursiveCompressionCollapseGuard"].evaluate_pass(
        guard["CompressionPass"](**item["pass"]), guard["CompressionPolicy"](**item["policy"]))
    out["guard"].append({"verdict": m.verdict.name, "directive": m.directive, "manifest_digest": m.manifest_digest})
for raw in req["trace"]:
    nodes = tuple(trace["ReasoningNode"](n["node_id"], trace["TraceNodeType"][n["node_type"]], n["content"], n["verification_receipt"]) for n in raw)
    try:
        r = trace["ReasoningTraceCompressor"].compress(nodes)
        out["trace"].append({"conclusions": [{"axiom": c.axiom, "proof_receipt": c.proof_receipt, "invalidated_paths": sorted(c.invalidated_paths)} for c in r.conclusions],
                             "eviction_boundary_index": r.eviction_boundary_index, "residual_digest": r.residual_digest})
    except ValueError as e:
        ids = [n.node_id for n in nodes if str(e) == f"Node {n.node_id!r} lacks a verification receipt; cannot promote to a binding axiom."]
        out["trace"].append({"error": ids[0] if ids else str(e)})
for x in req["fixed"]:
    out["fixed"].append([f"{x:.2f}", f"{x:.3f}"])
for s in req["strings"]:
    out["strings"].append(json.dumps(s))
for group in req["sorted"]:
    out["sorted"].append(sorted(group))
for s in req["strip"]:
    out["strip"].append(s.strip())
sys.stdout.write(json.dumps(out))
`;

interface PythonAnswers {
  guard: CompressionManifest[];
  trace: Array<CompressedResidual | { error: string }>;
  fixed: Array<[string, string]>;
  strings: string[];
  sorted: string[][];
  strip: string[];
}

function runReference(request: Record<keyof PythonAnswers, unknown[]>): PythonAnswers {
  const result = spawnSync(
    "python3",
    ["-c", DRIVER, pythonOf("collapse-guard.txt"), pythonOf("trace-compression.txt")],
    {
      input: JSON.stringify(request),
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  if (result.status !== 0) throw new Error(`reference run failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as PythonAnswers;
}

// ---- generators (seeded, so a failure can be replayed) ----

const PY_WHITESPACE =
  "\t\n\u000b\f\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000";
// Look like whitespace, are not whitespace to Python.
const NOT_WHITESPACE = "\ufeff\u200b\u180e\u2060";
const TRICKY = [
  '"',
  "\\",
  "/",
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u0080",
  "\u00e9",
  "\u00ff",
  "\u0100",
  "\u2028",
  "\u20ac",
  "\ud7ff",
  "\ue000",
  "\uff5e",
  "\uffff",
  "\u{1F600}",
  "\u{10000}",
  "\u{10FFFF}",
  "e\u0301",
  "\u4e2d",
  ...PY_WHITESPACE,
  ...NOT_WHITESPACE,
];

class Gen {
  constructor(readonly random: () => number) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return at(items, Math.floor(this.random() * items.length));
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  /** A double one ulp above or below x. */
  nudge(x: number): number {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const bits = view.getBigUint64(0);
    if (x === 0) return this.chance(0.5) ? 5e-324 : 0;
    view.setBigUint64(0, this.chance(0.5) ? bits + 1n : bits - 1n);
    return view.getFloat64(0);
  }

  /** Numbers in [0, 1] that stress Python's round-half-even-on-the-exact-value formatting. */
  unitFloat(): number {
    const kind = this.int(0, 7);
    let x: number;
    if (kind === 0)
      x = this.int(0, 2 ** 12) / 2 ** 12; // exact binary values, many exact ties
    else if (kind === 1)
      x = Number(`0.${String(this.int(0, 99)).padStart(2, "0")}5`); // decimal "ties" at .2f
    else if (kind === 2)
      x = Number(`0.${String(this.int(0, 999)).padStart(3, "0")}5`); // decimal "ties" at .3f
    else if (kind === 3)
      x = this.pick([
        0, 1, 0.5, 0.25, 0.125, 0.375, 0.0625, 0.005, 0.995, 0.9995, 1e-7, 5e-324, 2.2250738585072014e-308,
        0.9999999999999999,
      ]);
    else if (kind === 4) x = this.int(0, 100) / 100;
    else x = this.random();
    if (this.chance(0.2)) x = this.nudge(x);
    return Math.min(1, Math.max(0, x));
  }

  /** Any finite double, for the formatter on its own. */
  anyFloat(): number {
    const kind = this.int(0, 4);
    if (kind === 0) return this.unitFloat();
    if (kind === 1) return (this.random() - 0.5) * 10 ** this.int(-10, 25);
    if (kind === 2) return this.int(-(2 ** 20), 2 ** 20) / 2 ** this.int(0, 30);
    if (kind === 3) return Number(`${this.int(0, 9999)}.${String(this.int(0, 999)).padStart(3, "0")}5`);
    return this.pick([1e300, -1e300, 1.7976931348623157e308, 123456789.125, -0.125, 2.5, 0.5, 1.5, 1e21, 1e-300]);
  }

  text(max = 12, alphabet: readonly string[] = TRICKY): string {
    let s = "";
    const n = this.int(0, max);
    for (let i = 0; i < n; i++) s += this.chance(0.6) ? String.fromCharCode(this.int(0x20, 0x7e)) : this.pick(alphabet);
    return s;
  }

  padded(core: string): string {
    const ws = [...PY_WHITESPACE, ...NOT_WHITESPACE];
    const pad = () => Array.from({ length: this.int(0, 3) }, () => this.pick(ws)).join("");
    return pad() + core + pad();
  }

  bigInt(): number {
    return this.pick([0, 1, 2, 3, 2 ** 31, 2 ** 32 + 1, 2 ** 53 - 1, this.int(0, 1e6)]);
  }

  guardCase(): { pass: CompressionPass; policy: CompressionPolicy } {
    const max = this.chance(0.05) ? this.bigInt() : this.int(0, 40);
    const minSize = this.chance(0.05) ? this.bigInt() : this.int(0, 4096);
    const minDensity = this.unitFloat();
    const passNumber = this.pick([
      0,
      1,
      2,
      max,
      max + 1,
      Math.max(0, max - 1),
      this.int(0, 50),
      this.chance(0.1) ? this.bigInt() : 3,
    ]);
    const density = this.chance(0.15) ? minDensity : this.chance(0.15) ? this.nudge(minDensity) : this.unitFloat();
    return {
      pass: {
        pass_id: this.chance(0.5) ? `chain-${this.int(0, 99)}/p-${this.int(0, 99999)}` : this.text(20) || "p",
        pass_number: Math.min(passNumber, Number.MAX_SAFE_INTEGER),
        current_content_hash: this.chance(0.5) ? this.text(64, ["a", "b", "c", "0", "9"]) : this.text(16),
        current_size_bytes: this.pick([
          0,
          minSize,
          minSize + 1,
          Math.max(0, minSize - 1),
          this.int(0, 100_000),
          this.bigInt(),
        ]),
        is_parseable: this.chance(0.85),
        schema_valid: this.chance(0.85),
        semantic_density_score: Math.min(1, Math.max(0, density)),
      },
      policy: { min_size_bytes: minSize, min_semantic_density: minDensity, max_pass_number: max },
    };
  }

  traceCase(): ReasoningNode[] {
    const cores = Array.from({ length: this.int(1, 5) }, () => this.text(10));
    const receipt = (): string | null => {
      const k = this.int(0, 9);
      if (k === 0) return null;
      if (k === 1) return "";
      if (k === 2) return this.padded("");
      if (k === 3) return this.pick([...NOT_WHITESPACE]);
      return this.padded(this.pick(["exit 0", "HTTP 200", "sha256 ok", "ENOENT", this.text(8)]));
    };
    return Array.from({ length: this.int(0, 12) }, () => {
      const node_type = this.pick(NODE_TYPES);
      let verification_receipt = receipt();
      // Keep most traces valid so the residual, not only the failure, is compared.
      if (node_type === "VERIFIED_CONCLUSION" && !verification_receipt?.trim() && this.chance(0.8))
        verification_receipt = "exit 0";
      return {
        node_id: this.chance(0.7) ? `n-${this.int(0, 50)}` : this.text(8),
        node_type,
        content: this.padded(this.pick(cores)),
        verification_receipt,
      };
    });
  }
}

function portTrace(nodes: ReasoningNode[]): CompressedResidual | { error: string } {
  try {
    return compressTrace(nodes);
  } catch (error) {
    if (error instanceof MissingVerificationReceiptError) return { error: error.nodeId };
    throw error;
  }
}

/** The first few mismatches, with their inputs, so a failure explains itself. */
function mismatches<I, O>(inputs: I[], ours: O[], theirs: O[]): Array<{ input: I; ours: O; reference: O }> {
  const out: Array<{ input: I; ours: O; reference: O }> = [];
  inputs.forEach((input, i) => {
    if (out.length < 5 && JSON.stringify(ours[i]) !== JSON.stringify(theirs[i]))
      out.push({ input, ours: at(ours, i), reference: at(theirs, i) });
  });
  return out;
}

describe.skipIf(skipReason !== null)(`reference differential (python3, seed ${SEED})`, () => {
  const gen = new Gen(seededRandom(SEED));
  const guardCases = Array.from({ length: 4000 }, () => gen.guardCase());
  const traceCases = Array.from({ length: 2000 }, () => gen.traceCase());
  const floats = Array.from({ length: 4000 }, () => gen.anyFloat());
  const strings = Array.from({ length: 1000 }, () => gen.text(16));
  const groups = Array.from({ length: 300 }, () => Array.from({ length: gen.int(0, 8) }, () => gen.text(4)));
  const strips = Array.from({ length: 1000 }, () => gen.padded(gen.text(6)));
  let reference: PythonAnswers;

  it("runs the reference", () => {
    reference = runReference({
      guard: guardCases,
      trace: traceCases,
      fixed: floats,
      strings,
      sorted: groups,
      strip: strips,
    });
    expect(reference.guard).toHaveLength(guardCases.length);
    // Every gate is reached, and the trace cases include both outcomes.
    expect(new Set(reference.guard.map((m) => m.verdict)).size).toBe(4);
    const gates = [
      /is first pass\.$/,
      /use previous\.$/,
      /unparseable, restore previous\.$/,
      /schema invalid\.$/,
      /^HALT: Size /,
      /^HALT: Density /,
      /safe for further compression\.$/,
    ];
    for (const gate of gates)
      expect(reference.guard.filter((m) => gate.test(m.directive)).length, String(gate)).toBeGreaterThan(20);
    expect(reference.trace.some((r) => "error" in r)).toBe(true);
    expect(reference.trace.filter((r) => "residual_digest" in r).length).toBeGreaterThan(traceCases.length / 2);
  });

  it('f"{x:.2f}" and f"{x:.3f}" agree', () => {
    const ours = floats.map((x) => [pyFormatFixed(x, 2), pyFormatFixed(x, 3)] as [string, string]);
    expect(mismatches(floats, ours, reference.fixed)).toEqual([]);
  });

  it("json.dumps of strings agrees", () => {
    expect(mismatches(strings, strings.map(pyJsonString), reference.strings)).toEqual([]);
  });

  it("sorted() agrees", () => {
    const ours = groups.map((g) => [...g].sort(compareCodePoints));
    expect(mismatches(groups, ours, reference.sorted)).toEqual([]);
  });

  it("str.strip() agrees", () => {
    expect(mismatches(strips, strips.map(pyStrip), reference.strip)).toEqual([]);
  });

  it(`evaluate_pass agrees on ${guardCases.length} generated cases`, () => {
    const ours = guardCases.map((c) => evaluatePass(c.pass, c.policy));
    expect(mismatches(guardCases, ours, reference.guard)).toEqual([]);
  });

  it(`compress agrees on ${traceCases.length} generated traces`, () => {
    const ours = traceCases.map(portTrace);
    expect(mismatches(traceCases, ours, reference.trace)).toEqual([]);
  });
});

if (skipReason !== null) {
  describe("reference differential", () => {
    it.skip(`skipped: ${skipReason}`, () => {});
  });
}
