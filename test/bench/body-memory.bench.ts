// `npm run bench:body-memory`: 16 concurrent 30 MiB originals POSTed to the built app (embedded
// database), with the server's resident memory sampled every 50 ms. Prints the budget, the
// resident memory before, the peak, the growth and how many uploads were stored or told to
// retry (503). Target: growth at most twice the in-flight body budget. Asserts nothing.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { printTable } from "./support/report";
import { sampleRss, treeRss } from "./support/rss";
import { findFreePort, startApp } from "./support/server";

const DIST_DIR = process.env.NEXT_DIST_DIR || ".next-bench";
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 16);
const SIZE_MIB = Number(process.env.BENCH_BODY_MIB ?? 30);
const BUDGET_MIB = Number(process.env.FLOORLINE_BODY_BUDGET_MB ?? 256);
const MiB = 1024 * 1024;

function original(i: number): string {
  // Distinct per upload, so none is a repeat the store could answer without reading it.
  const unit = `{"row":${i},"text":"compressed-away tool output ${i}"},`;
  return `[${unit.repeat(Math.floor((SIZE_MIB * MiB) / unit.length) - 1)}{"row":${i}}]`;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-body-bench-"));
  const port = await findFreePort(3350, 3399);
  const app = await startApp({
    port,
    distDir: DIST_DIR,
    env: { FLOORLINE_DATA_DIR: dataDir, DATABASE_URL: "", FLOORLINE_BODY_BUDGET_MB: String(BUDGET_MIB) },
  });
  try {
    // Settle: one small request so lazy start-up work is not counted as growth.
    await fetch(`${app.baseUrl}/api/v1/originals?limit=1`);
    const bodies = Array.from({ length: CONCURRENT }, (_, i) => JSON.stringify({ original: original(i) }));
    const before = treeRss(app.pid);
    const sampler = sampleRss(app.pid, 50);
    const started = performance.now();
    const statuses = await Promise.all(
      bodies.map(async (body) => {
        try {
          const response = await fetch(`${app.baseUrl}/api/v1/originals`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          await response.arrayBuffer();
          return response.status;
        } catch (error) {
          // A reset connection is a failure the figures must show, not hide.
          console.error("upload failed:", (error as Error).cause ?? error);
          return 0;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const samples = sampler.stop();
    const peak = Math.max(...samples);
    const growth = peak - before;
    const count = (s: number) => statuses.filter((x) => x === s).length;
    printTable(
      ["figure", "value"],
      [
        ["uploads", `${CONCURRENT} × ${SIZE_MIB} MiB`],
        ["in-flight body budget", `${BUDGET_MIB} MiB`],
        ["stored (201)", String(count(201) + count(200))],
        ["told to retry (503)", String(count(503))],
        ["connection failures", String(count(0))],
        ["other statuses", statuses.filter((s) => s > 0 && s !== 200 && s !== 201 && s !== 503).join(", ") || "none"],
        ["server RSS before", `${(before / MiB).toFixed(0)} MiB`],
        ["server RSS peak", `${(peak / MiB).toFixed(0)} MiB`],
        ["growth", `${(growth / MiB).toFixed(0)} MiB`],
        ["wall time", `${seconds.toFixed(1)} s`],
      ],
    );
    const ratio = growth / (BUDGET_MIB * MiB);
    console.log(`growth / budget: ${ratio.toFixed(2)} (target <= 2): ${ratio <= 2 ? "met" : "NOT met"}`);
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
