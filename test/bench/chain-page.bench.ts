// `npm run bench:chain-page`: time to a rendered chain page (navigation until both curves
// are drawn and the passes table shows rows, in Debian's Chromium against the built app)
// for a chain of 100 passes and one of 100,000, and the ratio. Runs on the embedded
// database, and on PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL is set.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { adminUrlFromEnv, createDatabase, unreachableReason } from "./support/postgres";
import { median, printTable } from "./support/report";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { findFreePort, startApp, type RunningApp } from "./support/server";
import { at } from "../support/at";

const DIST_DIR = ".next-ui";
const PORTS = [3230, 3249] as const;
const TARGET = 2;
const RUNS = 9;
const WARMUP_RUNS = 2;
const BATCH = 5_000;
const CHAINS = [
  { id: "bench-100", passes: 100 },
  { id: "bench-100k", passes: 100_000 },
];
const POLICY = { min_size_bytes: 2_000, min_semantic_density: 0.35, max_pass_number: 1_000_000 };

/** A long decay with noise: crosses the size floor, dips under the density floor now and then, a few client mismatches. */
function receipt(chainId: string, n: number, total: number) {
  const t = n / total;
  const noise = ((n * 7919) % 1_000) / 1_000;
  return {
    chain_id: chainId,
    pass_id: `${chainId}.p${n}`,
    pass_number: n,
    input_content_hash: `${chainId}:${n - 1}`,
    current_content_hash: `${chainId}:${n}`,
    current_size_bytes: Math.round(500_000 * Math.exp(-6 * t) * (0.9 + 0.2 * noise)),
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: Math.max(0, Math.min(1, 0.95 - 0.6 * t + 0.08 * (noise - 0.5))),
    content_class: "bench",
    verdict: n % 9_973 === 0 ? "SAFE_TO_COMPRESS" : null,
  };
}

async function seed(app: RunningApp): Promise<void> {
  const put = await fetch(`${app.baseUrl}/api/v1/policies/bench`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(POLICY),
  });
  if (!put.ok) throw new Error(`PUT policy answered ${put.status}`);
  for (const chain of CHAINS) {
    for (let from = 1; from <= chain.passes; from += BATCH) {
      const receipts = Array.from({ length: Math.min(BATCH, chain.passes - from + 1) }, (_, i) =>
        receipt(chain.id, from + i, chain.passes),
      );
      const response = await fetch(`${app.baseUrl}/api/v1/passes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ receipts }),
      });
      if (response.status !== 201)
        throw new Error(`POST /api/v1/passes answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    const boundaries = [Math.floor(chain.passes * 0.5), Math.floor(chain.passes * 0.8)].map((n, i) => ({
      chain_id: chain.id,
      pass_number: n,
      strategy: i === 0 ? "halt" : "accept_loss",
      reason: "bench boundary",
    }));
    await fetch(`${app.baseUrl}/api/v1/boundaries`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ boundaries }),
    });
  }
}

/** Milliseconds from navigation to both curves drawn and the table filled, in a fresh browser context. */
async function timeRender(browser: Browser, url: string): Promise<{ rendered: number; points: number }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const start = performance.now();
  await page.goto(url, { waitUntil: "commit" });
  await page.waitForSelector('[data-testid="size-chart"] path.recharts-line-curve', { timeout: 120_000 });
  await page.waitForSelector('[data-testid="density-chart"] path.recharts-line-curve', { timeout: 120_000 });
  await page.waitForSelector('[data-testid="passes-table"] tbody tr[data-row-id]', { timeout: 120_000 });
  const rendered = performance.now() - start;
  const points = Number(await page.getAttribute('[data-testid="size-chart"]', "data-points"));
  await context.close();
  return { rendered, points };
}

/** Milliseconds for the server to answer the page's HTML in full (no browser). */
async function timeHtml(url: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(url);
  await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - start;
}

async function measure(label: string, env: Record<string, string>): Promise<string[][]> {
  const port = await findFreePort(...PORTS);
  console.log(`\n[${label}] starting the app on port ${port} (builds ${DIST_DIR} first when stale)…`);
  const app = await startApp({ port, distDir: DIST_DIR, env: { FLOORLINE_DEMO: "0", ...env } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const seeding = performance.now();
    await seed(app);
    console.log(
      `[${label}] seeded ${CHAINS.map((c) => c.passes.toLocaleString("en-US")).join(" + ")} passes in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );
    const urls = CHAINS.map((c) => `${app.baseUrl}/chains/${c.id}`);
    // The first view after a chain changed computes its curves; later views of the same
    // version reuse them (db/queries/chain-series.ts caches long chains' series by version).
    const first: number[] = [];
    for (const url of urls) first.push((await timeRender(browser, url)).rendered);
    for (let i = 0; i < WARMUP_RUNS; i++) for (const url of urls) await timeRender(browser, url);

    const rendered: number[][] = CHAINS.map(() => []);
    const html: number[][] = CHAINS.map(() => []);
    let points: number[] = [];
    // Interleaved, so that anything else the machine does falls on both chains alike.
    for (let run = 0; run < RUNS; run++) {
      const results = [];
      for (const [i, url] of urls.entries()) {
        results.push(await timeRender(browser, url));
        at(html, i).push(await timeHtml(url));
      }
      results.forEach((r, i) => {
        at(rendered, i).push(r.rendered);
      });
      points = results.map((r) => r.points);
    }
    const rows = CHAINS.map((c, i) => [
      `${label}: ${c.passes.toLocaleString("en-US")} passes`,
      at(points, i).toLocaleString("en-US"),
      at(first, i).toFixed(0),
      median(at(html, i)).toFixed(0),
      median(at(rendered, i)).toFixed(0),
      Math.min(...at(rendered, i)).toFixed(0),
      Math.max(...at(rendered, i)).toFixed(0),
    ]);
    const ratio = median(at(rendered, 1)) / median(at(rendered, 0));
    rows.push([
      `${label}: ratio 100,000 / 100`,
      "",
      (at(first, 1) / at(first, 0)).toFixed(2),
      (median(at(html, 1)) / median(at(html, 0))).toFixed(2),
      ratio.toFixed(2),
      "",
      "",
    ]);
    console.log(
      `[${label}] time to a rendered chain page, ratio ${ratio.toFixed(2)} (target <= ${TARGET}): ${ratio <= TARGET ? "met" : "NOT met"}`,
    );
    return rows;
  } finally {
    await browser.close();
    await app.stop();
  }
}

/** The stopped app's connections can take a moment to go; a database left behind is reported, not fatal. */
async function dropWithRetry(drop: () => Promise<void>, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await drop();
    } catch (error) {
      if (attempt === 5) return console.warn(`could not drop the bench database ${name}: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
}

async function main() {
  console.log(
    `chain page bench on ${os.cpus().length} CPU(s), ${RUNS} runs per chain after ${WARMUP_RUNS} warm-up runs`,
  );
  const rows: string[][] = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-bench-chain-"));
  try {
    rows.push(...(await measure("embedded (PGlite)", { FLOORLINE_DATA_DIR: dataDir, DATABASE_URL: "" })));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const adminUrl = adminUrlFromEnv();
  const reason = adminUrl ? await unreachableReason(adminUrl) : "BENCH_DATABASE_URL / TEST_DATABASE_URL not set";
  if (adminUrl && !reason) {
    const db = await createDatabase(adminUrl, "floorline_bench_chain");
    try {
      rows.push(...(await measure("PostgreSQL", { DATABASE_URL: db.url })));
    } finally {
      await dropWithRetry(db.drop, db.name);
    }
  } else {
    console.log(`\n[PostgreSQL] skipped: ${reason}`);
  }
  console.log("");
  printTable(
    ["chain", "points drawn", "first view ms", "HTML ms (median)", "rendered ms (median)", "min", "max"],
    rows,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
