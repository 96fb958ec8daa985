// `npm run bench:sdk`: the TypeScript SDK as built (sdk/typescript/dist).
// 1. recordPass per call on 4 KiB contents in two parts: the measurement (measure() alone) and
//    recordPass's own work (recordPass with the measurement replaced by a fixed answer), the
//    latter beside SHA-256 of the same bytes (target: at most 3x). CPU time of this process,
//    so that other processes on a shared machine do not count.
// 2. Receipts per second delivered to the built app by one SDK client against raw
//    POST /api/v1/passes batches of the same receipts (target >= 0.9), on an embedded database:
//    both sides timed from the first send to the last answer, the receipts made beforehand
//    (recording is part 1's); the SDK end to end, recording included, is printed beside.
// 3. The SDK's heap with the server stopped and 100,000 passes recorded (bounded by the queue),
//    with a fixed measurement so that it is the queue that is measured.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import vm from "node:vm";
import v8 from "node:v8";
import { repoRoot } from "./support/paths";
import { formatRate, median, printTable, ratioLine } from "./support/report";
import { findFreePort, startApp } from "./support/server";

v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

execFileSync(process.execPath, [path.join(repoRoot, "sdk/typescript/build.mjs")], { stdio: "inherit" });
const sdk = (await import(
  path.join(repoRoot, "sdk/typescript/dist/sdk/typescript/src/index.js")
)) as typeof import("../../sdk/typescript/src/index");

const CALLS = 500;
const RUNS = 9;
const DELIVERED = 10_000;
const HEAP_PASSES = 100_000;
const DELIVERY_ROUNDS = 5;

/** A 4 KiB log-like text, different for each i, as a compression step's input would be. */
function content(i: number, bytes = 4096): string {
  let s = "";
  for (let line = 0; s.length < bytes; line++) {
    s += `2026-12-01T10:${String(line % 60).padStart(2, "0")}:07Z worker-${i % 17} job ${i * 31 + line} took ${line * 7} ms on host db-${line % 5}\n`;
  }
  return s.slice(0, bytes);
}

/** Microseconds of this process's CPU per call over CALLS calls. */
function cpuPerCall(run: (i: number) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) run(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / CALLS;
}

// ---- 1. recordPass cost ---------------------------------------------------------------
const inputs = Array.from({ length: CALLS + 1 }, (_, i) => content(i));
const outputs = inputs.map((s) => s.slice(0, 3072));
const source = inputs[0] as string;
const fixedAnswer = sdk.measure(outputs[0] as string, { source });
const recorder = (options: ConstructorParameters<typeof sdk.Floorline>[0]) => {
  const fl = new sdk.Floorline(options);
  let chain = fl.chain("bench-0");
  let n = 0;
  return (i: number) => {
    // Chains of 100 passes, as a long-running agent's would be.
    if (i % 100 === 0) chain = fl.chain(`bench-${n++}`);
    chain.recordPass(inputs[i] as string, outputs[i] as string);
  };
};
const parts = {
  sha: (i: number) =>
    createHash("sha256")
      .update(inputs[i] as string)
      .digest("hex"),
  measure: (i: number) => sdk.measure(outputs[i] as string, { source }),
  own: recorder({ measure: () => fixedAnswer }),
  record: recorder({}),
};
// Warm every path first (the first calls would time the JIT), then time the four side by side
// in each run, so that a busy moment of the machine weighs on all of them alike.
for (const run of Object.values(parts)) cpuPerCall(run);
const runs: Array<Record<keyof typeof parts, number>> = [];
for (let r = 0; r < RUNS; r++)
  runs.push({
    sha: cpuPerCall(parts.sha),
    measure: cpuPerCall(parts.measure),
    own: cpuPerCall(parts.own),
    record: cpuPerCall(parts.record),
  });
const part = (key: keyof typeof parts) => median(runs.map((r) => r[key]));
const ownInSha = median(runs.map((r) => r.own / r.sha));
console.log(`\nrecordPass on 4 KiB contents (microseconds of CPU per call, median of ${RUNS} runs)`);
printTable(
  ["what", "us/call"],
  [
    ["SHA-256 of the 4 KiB input alone", part("sha").toFixed(1)],
    ["measure() of the output against the chain's source", part("measure").toFixed(1)],
    ["recordPass, its own work (the measurement replaced by a fixed answer)", part("own").toFixed(1)],
    ["recordPass with the measurement", part("record").toFixed(1)],
  ],
);
console.log(
  `recordPass's own work in SHA-256s of the same bytes: ${ownInSha.toFixed(2)} (target <= 3): ${ownInSha <= 3 ? "met" : "NOT met"}; the measurement is ${((part("measure") / part("record")) * 100).toFixed(0)}% of a recordPass`,
);

// ---- 2. delivery throughput -------------------------------------------------------------
const dataDir = mkdtempSync(path.join(tmpdir(), "floorline-bench-sdk-"));
const port = await findFreePort(4155, 4159);
const env = { DATABASE_URL: "", FLOORLINE_DATA_DIR: dataDir, FLOORLINE_DEMO: "0", LOG_LEVEL: "warn" };
const app = await startApp({ port, distDir: process.env.NEXT_DIST_DIR || ".next", env });
try {
  // The raw side's receipts through an offline chain, so both sides send the same bodies.
  const receipts = (prefix: string, count: number) => {
    const fl = new sdk.Floorline();
    const out: Array<Record<string, unknown>> = [];
    for (let c = 0; c < count / 1_000; c++) {
      const ch = fl.chain(`${prefix}-${c}`);
      for (let n = 0; n < 1_000; n++)
        out.push({ ...ch.recordPass(`in ${c} ${n}`, `out ${c} ${n} `.repeat(8), { density: 0.9 }).receipt });
    }
    return out;
  };
  const runRaw = async (prefix: string, count: number): Promise<number> => {
    const raw = receipts(prefix, count);
    const start = performance.now();
    for (let i = 0; i < raw.length; i += 500) {
      const response = await fetch(`${app.baseUrl}/api/v1/passes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ receipts: raw.slice(i, i + 500) }),
      });
      if (!response.ok) throw new Error(`raw batch answered ${response.status}`);
      await response.arrayBuffer();
    }
    return raw.length / ((performance.now() - start) / 1000);
  };
  // The SDK's receipts recorded first, the queue holding them all: nothing goes out while the
  // recording loop runs (delivery waits for the loop to yield), so the two are timed apart.
  const runSdk = async (prefix: string): Promise<{ rate: number; endToEnd: number }> => {
    const client = new sdk.Floorline({ url: app.baseUrl, flushOnExit: false, maxQueueSize: DELIVERED });
    const recordStart = performance.now();
    for (let c = 0; c < DELIVERED / 1_000; c++) {
      const ch = client.chain(`${prefix}-${c}`);
      for (let n = 0; n < 1_000; n++) ch.recordPass(`in ${c} ${n}`, `out ${c} ${n} `.repeat(8), { density: 0.9 });
    }
    const start = performance.now();
    await client.flush();
    const end = performance.now();
    const { sent, failed } = client.stats;
    await client.close();
    if (sent !== DELIVERED || failed !== 0) throw new Error(`the SDK delivered ${sent}, refused ${failed}`);
    return { rate: sent / ((end - start) / 1000), endToEnd: sent / ((end - recordStart) / 1000) };
  };
  // The summariser folds each run's passes after it is answered: a run that started before
  // the previous one's were folded would share the server with that work.
  const quiet = async () => {
    for (let waited = 0; waited < 120; waited++) {
      const metrics = await (await fetch(`${app.baseUrl}/metrics`)).text();
      if (/^floorline_fold_queue_passes 0$/m.test(metrics)) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error("the summariser did not catch up in a minute");
  };
  // A fresh server is slower at first (its JIT, the database's caches): warm it. Then rounds
  // of one run each, each run from a quiet server, the side that goes first alternating (the
  // tables grow run after run); on a shared machine the rate drifts from minute to minute,
  // so the ratio is taken within each round and its median reported.
  await runRaw("warm", 4_000);
  const rawRates: number[] = [];
  const sdkRuns: Array<{ rate: number; endToEnd: number }> = [];
  for (let round = 0; round < DELIVERY_ROUNDS; round++) {
    for (const side of round % 2 ? ["sdk", "raw"] : ["raw", "sdk"]) {
      await quiet();
      if (side === "raw") rawRates.push(await runRaw(`raw${round}`, DELIVERED));
      else sdkRuns.push(await runSdk(`sdk${round}`));
    }
  }
  const rawRate = median(rawRates);
  const sdkRate = median(sdkRuns.map((r) => r.rate));
  const endToEnd = median(sdkRuns.map((r) => r.endToEnd));
  const ratio = median(sdkRuns.map((r, i) => r.rate / (rawRates[i] as number)));
  console.log(
    `\nreceipts delivered to the built app (${DELIVERED.toLocaleString("en-US")} a run, batches of 500, embedded database; medians of ${DELIVERY_ROUNDS} rounds)`,
  );
  printTable(
    ["client", "receipts/s"],
    [
      ["raw POST /api/v1/passes batches (receipts made beforehand)", formatRate(rawRate)],
      ["one SDK client, from the first send to flush() (recorded beforehand)", formatRate(sdkRate)],
      ["one SDK client end to end (recordPass, then flush)", formatRate(endToEnd)],
    ],
  );
  console.log(ratioLine("SDK / raw (median of the rounds' ratios)", ratio, 0.9));

  // ---- 3. heap with the server stopped ----------------------------------------------------
  await app.stop();
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  // A fixed measurement keeps this part about the queue's memory (the measurement's own
  // caches are its own bench's) and lets it finish in seconds (its cost is part 1's).
  const offlineClient = new sdk.Floorline({
    url: app.baseUrl,
    flushOnExit: false,
    maxBackoffMs: 1_000,
    measure: () => fixedAnswer,
  });
  let chain = offlineClient.chain("heap-0");
  for (let i = 0; i < HEAP_PASSES; i++) {
    if (i % 1_000 === 0) chain = offlineClient.chain(`heap-${i}`);
    chain.recordPass(inputs[i % CALLS] as string, outputs[i % CALLS] as string, { density: 0.9 });
  }
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  const stats = offlineClient.stats;
  console.log(`\nserver stopped, ${HEAP_PASSES.toLocaleString("en-US")} passes recorded (4 KiB contents)`);
  printTable(
    ["heap growth (MiB)", "queued", "dropped"],
    [[((after - before) / 2 ** 20).toFixed(1), String(stats.queued), String(stats.dropped)]],
  );
  await offlineClient.close(0);
} finally {
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
