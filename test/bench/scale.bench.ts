// `npm run bench:scale`: what every page and API list costs at 1,000 chains of 10 passes
// and at 100,000 chains (1,000,000 passes), on PostgreSQL, and on the embedded database at
// 1,000 vs 10,000 chains (100,000 passes). Everything is seeded through the HTTP API of the
// built app (5,000-receipt batches, a few at once); each request's time is the median of
// repeated requests, interleaved so that the shared machine's load falls on all alike.
//
// Environment: SCALE_ONLY=postgres|pglite, SCALE_SMALL (1000), SCALE_LARGE (100000),
// SCALE_PGLITE_LARGE (10000) chains, SCALE_RUNS (7), SCALE_CONCURRENCY (3).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { MAX_PASS_BATCH } from "@/lib/schemas/passes";
import { adminUrlFromEnv, createDatabase, unreachableReason, type BenchDatabase } from "./support/postgres";
import { median, printTable } from "./support/report";
import {
  chainIdOf,
  PASSES_PER_CHAIN,
  SCALE_POLICIES,
  scaleChain,
  scaleOriginal,
  scaleTrace,
} from "./support/scale-data";
import { findFreePort, startApp, type RunningApp } from "./support/server";

const env = process.env;
const DIST_DIR = ".next-bench";
const PORTS = [3600, 3699] as const;
const SMALL = Number(env.SCALE_SMALL ?? 1_000);
const LARGE = Number(env.SCALE_LARGE ?? 100_000);
const PGLITE_LARGE = Number(env.SCALE_PGLITE_LARGE ?? 10_000);
const RUNS = Number(env.SCALE_RUNS ?? 7);
const WARMUP = 2;
const CONCURRENCY = Number(env.SCALE_CONCURRENCY ?? 3);
const TARGET_RATIO = 2;
const TARGET_MS = 300;
const CHAINS_PER_BATCH = MAX_PASS_BATCH / PASSES_PER_CHAIN;
/** One cached original and one trace per this many chains. */
const SIDE_EVERY = 100;

const STATUSES = [
  "healthy",
  "collapsed",
  "guarded",
  "collapse_imminent",
  "floor_breached",
  "client_mismatch",
  "broken_integrity",
];
const SORTS = ["pass_count", "min_density", "min_size"];
const RANGES = ["24h", "7d", "30d", "90d", "all"];

/** Every page and API list, as a user or a script would ask for it. */
function requests(): [label: string, path: string][] {
  // A chain of the small set, so the id search finds one chain at both sizes.
  const probe = chainIdOf(Math.min(421, SMALL - 1));
  const idPart = probe.slice(-6);
  return [
    ...RANGES.map((r): [string, string] => [`overview /?range=${r}`, `/?range=${r}`]),
    ["/chains", "/chains"],
    ...STATUSES.map((s): [string, string] => [`/chains?status=${s}`, `/chains?status=${s}`]),
    ...SORTS.map((s): [string, string] => [`/chains?sort=${s}`, `/chains?sort=${s}`]),
    ["/chains?sort=last_activity&order=asc", "/chains?sort=last_activity&order=asc"],
    ["/chains?order=asc (needs attention, reversed)", "/chains?order=asc"],
    ["/chains?status=collapse_imminent&sort=min_density", "/chains?status=collapse_imminent&sort=min_density"],
    ["/chains?content_class=summary", "/chains?content_class=summary"],
    [`/chains?q=${idPart} (id search)`, `/chains?q=${idPart}`],
    ["/chains?q=42 (substring)", "/chains?q=42"],
    [`/chains/${probe}`, `/chains/${probe}`],
    ["/policies", "/policies"],
    ["/policies?class=summary", "/policies?class=summary"],
    ["/originals", "/originals"],
    ["/traces", "/traces"],
    ["GET /api/v1/chains", "/api/v1/chains"],
    ...STATUSES.map((s): [string, string] => [`GET /api/v1/chains?status=${s}`, `/api/v1/chains?status=${s}`]),
    ...SORTS.map((s): [string, string] => [`GET /api/v1/chains?sort=${s}`, `/api/v1/chains?sort=${s}`]),
    ["GET /api/v1/chains?content_class=summary", "/api/v1/chains?content_class=summary"],
    [`GET /api/v1/chains?q=${idPart}`, `/api/v1/chains?q=${idPart}`],
    ["GET /api/v1/chains?q=42", "/api/v1/chains?q=42"],
    ["GET /api/v1/chains?status=floor_breached&sort=min_size", "/api/v1/chains?status=floor_breached&sort=min_size"],
    [`GET /api/v1/chains/${probe}`, `/api/v1/chains/${probe}`],
    ["GET /api/v1/policies", "/api/v1/policies"],
    ["GET /api/v1/originals", "/api/v1/originals"],
    ["GET /api/v1/originals?q=search", "/api/v1/originals?q=search"],
    ["GET /api/v1/originals/stats", "/api/v1/originals/stats"],
    ["GET /api/v1/traces", "/api/v1/traces"],
    ["GET /api/v1/traces?q=floor", "/api/v1/traces?q=floor"],
    ["GET /api/v1/trace-rejections", "/api/v1/trace-rejections"],
  ];
}

async function send(app: RunningApp, method: string, urlPath: string, body: unknown, okStatuses = [200, 201]) {
  const response = await fetch(`${app.baseUrl}${urlPath}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!okStatuses.includes(response.status))
    throw new Error(`${method} ${urlPath} answered ${response.status}: ${text.slice(0, 400)}`);
}

/** Runs `work(k)` for k in [0, count) with at most `limit` at once. */
async function pool(count: number, limit: number, work: (k: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** Sends chains [from, to) with their boundaries, originals and traces; returns receipts per second. */
async function seed(app: RunningApp, from: number, to: number, now: number, label: string): Promise<number> {
  const started = performance.now();
  const batches = Math.ceil((to - from) / CHAINS_PER_BATCH);
  let done = 0;
  await pool(batches, CONCURRENCY, async (b) => {
    const first = from + b * CHAINS_PER_BATCH;
    const chains = Array.from({ length: Math.min(CHAINS_PER_BATCH, to - first) }, (_, k) => scaleChain(first + k, now));
    await send(app, "POST", "/api/v1/passes", { receipts: chains.flatMap((c) => c.receipts) });
    const boundaries = chains.flatMap((c) => (c.boundary ? [c.boundary] : []));
    if (boundaries.length) await send(app, "POST", "/api/v1/boundaries", { boundaries });
    if (++done % 20 === 0) console.log(`[${label}] ${done}/${batches} batches`);
  });
  const seconds = (performance.now() - started) / 1000;
  await pool(Math.ceil((to - from) / SIDE_EVERY), CONCURRENCY * 2, async (k) => {
    const chain = from + k * SIDE_EVERY;
    await send(app, "POST", "/api/v1/originals", scaleOriginal(chain));
    await send(app, "POST", "/api/v1/traces", scaleTrace(chain));
  });
  return ((to - from) * PASSES_PER_CHAIN) / seconds;
}

async function timeRequest(app: RunningApp, urlPath: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${app.baseUrl}${urlPath}`);
  await response.text();
  const ms = performance.now() - start;
  if (response.status !== 200) throw new Error(`GET ${urlPath} answered ${response.status}`);
  return ms;
}

/** Median milliseconds per request, rounds interleaved across all requests. */
async function measure(app: RunningApp): Promise<Map<string, number>> {
  const list = requests();
  const times = new Map<string, number[]>(list.map(([label]) => [label, []]));
  for (let run = 0; run < WARMUP + RUNS; run++) {
    for (const [label, urlPath] of list) {
      const ms = await timeRequest(app, urlPath);
      if (run >= WARMUP) times.get(label)?.push(ms);
    }
  }
  return new Map([...times].map(([label, values]) => [label, median(values)]));
}

interface EngineResult {
  name: string;
  small: number;
  large: number;
  smallMs: Map<string, number>;
  largeMs: Map<string, number>;
  rates: number[];
}

async function runEngine(
  name: string,
  appEnv: Record<string, string>,
  large: number,
  afterSeed: () => Promise<void>,
): Promise<EngineResult> {
  const port = await findFreePort(...PORTS);
  console.log(`\n[${name}] starting the app on port ${port} (builds ${DIST_DIR} first when stale)...`);
  const app = await startApp({
    port,
    distDir: DIST_DIR,
    env: { FLOORLINE_DEMO: "0", FLOORLINE_API_TOKEN: "", FLOORLINE_AUTH: "off", NODE_ENV: "production", ...appEnv },
  });
  try {
    const now = Date.now();
    for (const [contentClass, policy] of Object.entries(SCALE_POLICIES))
      await send(app, "PUT", `/api/v1/policies/${contentClass}`, policy);
    const rates = [await seed(app, 0, SMALL, now, name)];
    await afterSeed();
    console.log(`[${name}] ${SMALL.toLocaleString("en-US")} chains seeded; measuring...`);
    const smallMs = await measure(app);
    rates.push(await seed(app, SMALL, large, now, name));
    await afterSeed();
    console.log(`[${name}] ${large.toLocaleString("en-US")} chains seeded; measuring...`);
    const largeMs = await measure(app);
    return { name, small: SMALL, large, smallMs, largeMs, rates };
  } finally {
    await app.stop();
  }
}

function report(result: EngineResult): void {
  const k = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
  console.log(
    `\n${result.name}: ${k(result.small)} chains (${k(result.small * PASSES_PER_CHAIN)} passes) vs ` +
      `${k(result.large)} chains (${k(result.large * PASSES_PER_CHAIN)} passes), median of ${RUNS} requests, ms`,
  );
  console.log(
    `seeding through POST /api/v1/passes: ${result.rates.map((r) => Math.round(r).toLocaleString("en-US")).join(" then ")} receipts/s`,
  );
  let met = 0;
  const rows = requests().map(([label]) => {
    const a = result.smallMs.get(label) ?? Number.NaN;
    const b = result.largeMs.get(label) ?? Number.NaN;
    const ratio = b / a;
    const ok = ratio <= TARGET_RATIO && b < TARGET_MS;
    if (ok) met++;
    return [label, a.toFixed(1), b.toFixed(1), `x${ratio.toFixed(1)}`, ok ? "yes" : "NO"];
  });
  printTable(["request", `${k(result.small)} chains`, `${k(result.large)} chains`, "ratio", "met"], rows);
  console.log(
    `${met} of ${rows.length} requests within x${TARGET_RATIO} and under ${TARGET_MS} ms at ${k(result.large)} chains`,
  );
}

/** Drops the bench database, but gives up waiting after a while: a DROP DATABASE can queue behind another session's stuck backend on a shared server. */
async function dropSoon(db: BenchDatabase | undefined): Promise<void> {
  if (!db) return;
  const dropping = db.drop().catch((error: unknown) => console.error(`could not drop ${db.name}:`, error));
  const gaveUp = await Promise.race([
    dropping.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), 60_000).unref()),
  ]);
  if (gaveUp) console.error(`still dropping ${db.name} after 60 s; going on (it is dropped when the server lets it)`);
}

async function main(): Promise<void> {
  console.log(
    `bench:scale on ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} (the machine is shared: absolute times move with it, ratios less)`,
  );
  if (env.SCALE_ONLY !== "pglite") {
    const adminUrl = adminUrlFromEnv();
    const unreachable = adminUrl ? await unreachableReason(adminUrl) : "no BENCH_DATABASE_URL or TEST_DATABASE_URL";
    if (!adminUrl || unreachable) {
      console.log(`PostgreSQL half skipped: ${unreachable}`);
    } else {
      let db: BenchDatabase | undefined;
      try {
        db = await createDatabase(adminUrl, "floorline_scale");
        const url = db.url;
        // Autovacuum would analyze the fresh rows within a minute or so; doing it now keeps
        // the measurement from racing it.
        const analyze = async () => {
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            await sql`vacuum analyze`;
          } finally {
            await sql.end();
          }
        };
        const result = await runEngine("PostgreSQL", { DATABASE_URL: url }, LARGE, analyze);
        report(result);
      } finally {
        await dropSoon(db);
      }
    }
  }
  if (env.SCALE_ONLY !== "postgres") {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-scale-"));
    try {
      const result = await runEngine(
        "PGlite",
        { DATABASE_URL: "", FLOORLINE_DATA_DIR: dataDir },
        PGLITE_LARGE,
        async () => {},
      );
      report(result);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
