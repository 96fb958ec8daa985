// `npm run bench:guard`: evaluations per second of lib/guard/guard.ts and of the reference Python
// guard on the same vectors, in one run. The reference is read at run time from the shared
// folder (never copied into the repository); without it only the TypeScript half runs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  evaluatePass,
  type CompressionManifest,
  type CompressionPass,
  type CompressionPolicy,
} from "@/lib/guard/guard";
import { findSharedDir, repoRoot } from "./support/paths";
import { formatRate, median, printTable, ratioLine } from "./support/report";

interface GuardCase {
  pass: CompressionPass;
  policy: CompressionPolicy;
  expect: CompressionManifest;
}

const VECTORS = path.join(repoRoot, "test/fixtures/guard-public.json");
const REPEAT = 250;
// The two sides take turns, block by block, so that load from elsewhere on the machine
// falls on both rather than on whichever ran second.
const BLOCKS = 4;
const ROUNDS_PER_BLOCK = 3;
const WARMUP_MS = 500;
const TARGET = 3;
const REFERENCE_START = "from dataclasses import dataclass";

// Runs in its own interpreter: builds the dataclasses before the clock starts and times only
// evaluate_pass, so start-up and JSON loading stay out of the figure, as on the Node side.
// Both sides count CPU time, not wall time: on a shared machine wall time also counts the
// moments the scheduler gave the core to someone else.
const PYTHON_DRIVER = `
import json, sys, time
from collapse_guard import CompressionPass, CompressionPolicy, RecursiveCompressionCollapseGuard

vectors_path, repeat, rounds, warmup_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(vectors_path) as f:
    cases = json.load(f)
evaluate = RecursiveCompressionCollapseGuard.evaluate_pass
inputs = [(CompressionPass(**c["pass"]), CompressionPolicy(**c["policy"])) for c in cases]
for (cp, policy), c in zip(inputs, cases):
    m = evaluate(cp, policy)
    got = {"verdict": m.verdict.name, "directive": m.directive, "manifest_digest": m.manifest_digest}
    if got != c["expect"]:
        sys.exit("reference disagrees with the vector for pass %r" % cp.pass_id)
sample = inputs * repeat

def run():
    start = time.process_time()
    for cp, policy in sample:
        evaluate(cp, policy)
    return time.process_time() - start

deadline = time.perf_counter() + warmup_ms / 1000
while time.perf_counter() < deadline:
    run()
print(json.dumps({"evaluations": len(sample), "seconds": [run() for _ in range(rounds)]}))
`;

/** Checks the TypeScript guard against the vectors, then returns a function that times one block. */
function typeScriptTimer(cases: readonly GuardCase[]): () => number[] {
  for (const c of cases) {
    const got = evaluatePass(c.pass, c.policy);
    if (
      got.verdict !== c.expect.verdict ||
      got.directive !== c.expect.directive ||
      got.manifest_digest !== c.expect.manifest_digest
    ) {
      throw new Error(`lib/guard/guard.ts disagrees with the vector for pass ${JSON.stringify(c.pass.pass_id)}`);
    }
  }
  const sample = Array.from({ length: REPEAT }, () => cases).flat();
  // The digests' lengths are summed so the engine cannot treat the calls as dead code.
  let sink = 0;
  const run = () => {
    const start = process.cpuUsage();
    for (const c of sample) sink += evaluatePass(c.pass, c.policy).manifest_digest.length;
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1e6;
  };
  return () => {
    const deadline = performance.now() + WARMUP_MS;
    while (performance.now() < deadline) run();
    const seconds = Array.from({ length: ROUNDS_PER_BLOCK }, run);
    if (sink === 0) throw new Error("no digests were computed");
    return seconds;
  };
}

/** Extracts the reference into a temporary folder and returns a function that times one block in python3, or why it cannot. */
function pythonTimer(sharedDir: string): { time: () => number[]; cleanUp: () => void } | string {
  const referencePath = path.join(sharedDir, "reference", "collapse-guard.txt");
  let reference: string;
  try {
    reference = readFileSync(referencePath, "utf8");
  } catch {
    return `no reference at ${referencePath}`;
  }
  const start = reference.indexOf(REFERENCE_START);
  if (start < 0) return `${referencePath} has no line "${REFERENCE_START}"`;

  const dir = mkdtempSync(path.join(tmpdir(), "floorline-guard-bench-"));
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  writeFileSync(path.join(dir, "collapse_guard.py"), reference.slice(start));
  writeFileSync(path.join(dir, "driver.py"), PYTHON_DRIVER);
  const time = () => {
    const result = spawnSync(
      "python3",
      [path.join(dir, "driver.py"), VECTORS, String(REPEAT), String(ROUNDS_PER_BLOCK), String(WARMUP_MS)],
      {
        cwd: dir,
        encoding: "utf8",
        maxBuffer: 1 << 20,
      },
    );
    if (result.error) throw new Error(`python3 could not be started (${result.error.message})`);
    if (result.status !== 0) throw new Error(`the Python driver failed: ${result.stderr.trim()}`);
    return (JSON.parse(result.stdout) as { seconds: number[] }).seconds;
  };
  try {
    time();
  } catch (error) {
    cleanUp();
    return (error as Error).message;
  }
  return { time, cleanUp };
}

const rate = (evaluations: number, seconds: number[]) => evaluations / median(seconds);

function main() {
  const cases: GuardCase[] = JSON.parse(readFileSync(VECTORS, "utf8"));
  const evaluations = cases.length * REPEAT;
  console.log(
    `collapse guard: ${cases.length} vectors x ${REPEAT} = ${evaluations} evaluations per round; median of ` +
      `${BLOCKS} x ${ROUNDS_PER_BLOCK} rounds per side, the sides taking turns, each block after ${WARMUP_MS} ms warm-up; CPU time of evaluation only, in-process\n`,
  );

  const timeTypeScript = typeScriptTimer(cases);
  const sharedDir = findSharedDir();
  const python = sharedDir
    ? pythonTimer(sharedDir)
    : "no shared folder (looked for FLOORLINE_SHARED_DIR and <repo>/../shared)";
  const ts: number[] = [];
  const py: number[] = [];
  try {
    for (let block = 0; block < BLOCKS; block++) {
      ts.push(...timeTypeScript());
      if (typeof python !== "string") py.push(...python.time());
    }
  } finally {
    if (typeof python !== "string") python.cleanUp();
  }

  const rows = [
    ["TypeScript (lib/guard/guard.ts, node " + process.versions.node + ")", formatRate(rate(evaluations, ts))],
  ];
  if (py.length > 0) rows.push(["Python reference (python3)", formatRate(rate(evaluations, py))]);
  printTable(["implementation", "evals/s"], rows);
  console.log("");
  if (typeof python === "string") {
    console.log(`Python half skipped: ${python}.`);
  } else {
    console.log(ratioLine("TypeScript / Python", rate(evaluations, ts) / rate(evaluations, py), TARGET));
  }
}

main();
