// `npm run bench:guard`: evaluations per second of lib/guard.ts and of the reference Python
// guard on the same vectors, in one run. The reference is read at run time from the shared
// folder (never copied into the repository); without it only the TypeScript half runs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { evaluatePass, type CompressionManifest, type CompressionPass, type CompressionPolicy } from "@/lib/guard";
import { findSharedDir, repoRoot } from "./support/paths";
import { formatRate, median, printTable, ratioLine } from "./support/report";

interface GuardCase {
  pass: CompressionPass;
  policy: CompressionPolicy;
  expect: CompressionManifest;
}

const VECTORS = path.join(repoRoot, "test/fixtures/guard-public.json");
const REPEAT = 250;
const ROUNDS = 7;
const WARMUP_MS = 1_000;
const TARGET = 3;
const REFERENCE_START = "from dataclasses import dataclass";

// Runs in its own interpreter: builds the dataclasses before the clock starts and times only
// evaluate_pass, so start-up and JSON loading stay out of the figure, as on the Node side.
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
    start = time.perf_counter()
    for cp, policy in sample:
        evaluate(cp, policy)
    return time.perf_counter() - start

deadline = time.perf_counter() + warmup_ms / 1000
while time.perf_counter() < deadline:
    run()
print(json.dumps({"evaluations": len(sample), "seconds": [run() for _ in range(rounds)]}))
`;

interface Timing {
  evaluations: number;
  seconds: number[];
}

function timeTypeScript(cases: readonly GuardCase[]): Timing {
  for (const c of cases) {
    const got = evaluatePass(c.pass, c.policy);
    if (got.verdict !== c.expect.verdict || got.directive !== c.expect.directive || got.manifest_digest !== c.expect.manifest_digest) {
      throw new Error(`lib/guard.ts disagrees with the vector for pass ${JSON.stringify(c.pass.pass_id)}`);
    }
  }
  const sample = Array.from({ length: REPEAT }, () => cases).flat();
  // The digests' lengths are summed so the engine cannot treat the calls as dead code.
  let sink = 0;
  const run = () => {
    const start = process.hrtime.bigint();
    for (const c of sample) sink += evaluatePass(c.pass, c.policy).manifest_digest.length;
    return Number(process.hrtime.bigint() - start) / 1e9;
  };
  const deadline = performance.now() + WARMUP_MS;
  while (performance.now() < deadline) run();
  const seconds = Array.from({ length: ROUNDS }, run);
  if (sink === 0) throw new Error("no digests were computed");
  return { evaluations: sample.length, seconds };
}

function timePython(sharedDir: string): Timing | string {
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
  try {
    writeFileSync(path.join(dir, "collapse_guard.py"), reference.slice(start));
    writeFileSync(path.join(dir, "driver.py"), PYTHON_DRIVER);
    const result = spawnSync("python3", [path.join(dir, "driver.py"), VECTORS, String(REPEAT), String(ROUNDS), String(WARMUP_MS)], {
      cwd: dir,
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    if (result.error) return `python3 could not be started (${result.error.message})`;
    if (result.status !== 0) return `the Python driver failed: ${result.stderr.trim()}`;
    return JSON.parse(result.stdout) as Timing;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rate = (t: Timing) => t.evaluations / median(t.seconds);

function main() {
  const cases: GuardCase[] = JSON.parse(readFileSync(VECTORS, "utf8"));
  console.log(`collapse guard: ${cases.length} vectors x ${REPEAT} = ${cases.length * REPEAT} evaluations per round, ` +
    `median of ${ROUNDS} rounds after ${WARMUP_MS} ms warm-up; evaluation only, in-process\n`);

  const ts = timeTypeScript(cases);
  const sharedDir = findSharedDir();
  const py = sharedDir ? timePython(sharedDir) : "no shared folder (looked for FLOORLINE_SHARED_DIR and <repo>/../shared)";

  const rows = [["TypeScript (lib/guard.ts, node " + process.versions.node + ")", formatRate(rate(ts))]];
  if (typeof py !== "string") rows.push(["Python reference (python3)", formatRate(rate(py))]);
  printTable(["implementation", "evals/s"], rows);
  console.log("");
  if (typeof py === "string") {
    console.log(`Python half skipped: ${py}.`);
  } else {
    console.log(ratioLine("TypeScript / Python", rate(ts) / rate(py), TARGET));
  }
}

main();
