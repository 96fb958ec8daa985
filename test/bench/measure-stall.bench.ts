// `npm run bench:measure-stall`: four clients post pathological contents of about 4 MiB to
// `POST /api/v1/measure` of the built app (embedded database), again and again, while a fifth
// asks `GET /api/v1/health` every 20 ms. Prints the health answers' latency (median, p99, max)
// beside issue 40's target (p99 under 100 ms) and what the measurements answered. Measurement
// runs in worker threads (lib/measure/pool.ts); this is what shows it never holds the server.
// Asserts nothing.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { printTable } from "./support/report";
import { findFreePort, startApp } from "./support/server";

const DIST_DIR = process.env.NEXT_DIST_DIR || ".next-bench";
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CLIENTS = 4;
const P99_TARGET_MS = 100;
const MiB = 1024 * 1024;

/** Contents at the size limit that cost a measurement the most per byte (bench:measure). */
const PATHOLOGICAL = [
  Array.from({ length: 380_000 }, (_, i) => `x${i}-y${i % 97}`).join(" "),
  "1 ".repeat(2 * MiB - 8),
  "1:".repeat(2 * MiB - 8),
  '{"a":'.repeat(Math.floor((4 * MiB) / 5) - 8),
].map((content) => content.slice(0, 4 * MiB - 64));
/**
 * Their request bodies, made once: stringifying 4 MiB takes the client's event loop for tens of
 * milliseconds, and the health requests timed on that same loop would wait for it.
 */
const BODIES = PATHOLOGICAL.map((content) =>
  JSON.stringify({ content, source: content.slice(0, 64 * 1024), format: "any" }),
);

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-stall-bench-"));
  // BENCH_URL: a server started elsewhere (under a profiler, say) instead of the built app.
  const app = process.env.BENCH_URL
    ? { baseUrl: process.env.BENCH_URL, stop: async () => {} }
    : await startApp({
        port: await findFreePort(3400, 3449),
        distDir: DIST_DIR,
        env: { FLOORLINE_DATA_DIR: dataDir, DATABASE_URL: "" },
      });
  const statuses = new Map<number, number>();
  const health: number[] = [];
  let running = true;
  try {
    await fetch(`${app.baseUrl}/api/v1/health`);
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      for (let round = 0; running; round++) {
        const response = await fetch(`${app.baseUrl}/api/v1/measure`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: BODIES[(c + round) % BODIES.length] as string,
        }).catch(() => null);
        const status = response?.status ?? 0;
        await response?.arrayBuffer();
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    });
    const deadline = performance.now() + SECONDS * 1000;
    while (performance.now() < deadline) {
      const started = performance.now();
      const answer = await fetch(`${app.baseUrl}/api/v1/health`).catch(() => null);
      await answer?.arrayBuffer();
      health.push(answer?.ok ? performance.now() - started : Number.POSITIVE_INFINITY);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    running = false;
    await Promise.all(clients);
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const sorted = [...health].sort((a, b) => a - b);
  const p99 = quantile(sorted, 0.99);
  printTable(
    ["figure", "value"],
    [
      ["measuring clients", `${CLIENTS}, contents of about 4 MiB (${PATHOLOGICAL.length} pathological kinds)`],
      ["health requests", String(health.length)],
      ["health median", `${quantile(sorted, 0.5).toFixed(1)} ms`],
      ["health p99", `${p99.toFixed(1)} ms`],
      ["health max", `${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms`],
      ["health not answered 200", String(health.filter((ms) => !Number.isFinite(ms)).length)],
      [
        "measure answers",
        [...statuses]
          .sort(([a], [b]) => a - b)
          .map(([status, n]) => `${status || "failed"}: ${n}`)
          .join(", "),
      ],
    ],
  );
  console.log(
    `health p99 while measuring: ${p99.toFixed(1)} ms (target < ${P99_TARGET_MS}): ${p99 < P99_TARGET_MS ? "met" : "NOT met"}`,
  );
}

await main();
