// `npm run bench:soak`: the server's memory over a long mixed run. For SOAK_SECONDS (300)
// the built app takes receipt batches, boundaries, cached originals and retrievals, serves
// every page and list in a loop, and keeps live event streams open (reconnecting them now
// and then, as browsers do); the resident memory of the server's processes is sampled every
// second and printed, with start, peak, end and the slope over the last three minutes (or
// the last 60% of a shorter run). Beside that load, receipts with 4 KiB of content each, on new
// chains whose first pass brings the source, are measured on ingest all along (the measurement
// threads and what they keep are in the server's memory: docs/measurement.md); SOAK_MEASURED=0
// leaves them out (the mix issue 40's target was set on). PostgreSQL when BENCH_DATABASE_URL or
// TEST_DATABASE_URL is set, and the embedded database. SOAK_ONLY=postgres|pglite runs one of them.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { adminUrlFromEnv, createDatabase, unreachableReason, type BenchDatabase } from "./support/postgres";
import { contentBatches } from "./support/content-receipts";
import { printTable } from "./support/report";
import { chainIdOf, PASSES_PER_CHAIN, SCALE_POLICIES, scaleChain, scaleOriginal } from "./support/scale-data";
import { findFreePort, type RunningApp, serverNodeFlags, startApp } from "./support/server";

const env = process.env;
const DIST_DIR = ".next-bench";
const PORTS = [3700, 3799] as const;
const SECONDS = Number(env.SOAK_SECONDS ?? 300);
const TREND_SECONDS = Math.min(180, Math.floor(SECONDS * 0.6));
const TARGET_PEAK_MB = 400;
const STREAMS = 6;
const STREAM_LIFETIME_MS = 20_000;
const CHAINS_PER_BATCH = 200;
const HEAP_EVERY_MS = 5_000;
/** Measured receipts: a batch of this many new chains, five passes each, about once a second. */
const MEASURED_CHAINS = 20;
const MEASURED = env.SOAK_MEASURED !== "0";

/** Every process under `pid` (the start script, next start and anything it forked). */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const taskDir = `/proc/${out[i]}/task`;
    try {
      for (const task of readdirSync(taskDir)) {
        const children = readFileSync(`${taskDir}/${task}/children`, "utf8").trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // the process has exited
    }
  }
  return out;
}

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/**
 * Resident memory of the server: its largest process (next-server; the start script that
 * launched it is a small wrapper), and of the whole process tree.
 */
function serverRss(pid: number): { server: number; tree: number } {
  const each = processTree(pid).map(rssMb);
  return { server: Math.max(0, ...each), tree: each.reduce((a, b) => a + b, 0) };
}

/** Least-squares slope of y over x. */
function slope(points: readonly [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** The V8 heap of the server as its own `/metrics` tells it, in MB. */
interface HeapSample {
  used: number;
  total: number;
  /** Memory outside the heap that V8 knows of: Buffers, ArrayBuffers (request bodies, PGlite's WASM memory). */
  external: number;
}

async function heapSample(app: RunningApp): Promise<HeapSample | null> {
  try {
    const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
    const sample = {
      used: value("nodejs_heap_size_used_bytes"),
      total: value("nodejs_heap_size_total_bytes"),
      external: value("nodejs_external_memory_bytes"),
    };
    return Number.isFinite(sample.total) ? sample : null;
  } catch {
    return null;
  }
}

async function send(app: RunningApp, method: string, urlPath: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${app.baseUrl}${urlPath}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  if (response.status >= 500) throw new Error(`${method} ${urlPath} answered ${response.status}`);
  return response;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Counts {
  receipts: number;
  reads: number;
  streams: number;
  events: number;
  originals: number;
  measured: number;
}

/** The mixed load, until `deadline`. */
async function load(app: RunningApp, deadline: number, counts: Counts): Promise<void> {
  const now = Date.now();
  let nextChain = 0;
  const ingest = async () => {
    while (Date.now() < deadline) {
      const first = nextChain;
      nextChain += CHAINS_PER_BATCH;
      const chains = Array.from({ length: CHAINS_PER_BATCH }, (_, k) => scaleChain(first + k, now));
      await send(app, "POST", "/api/v1/passes", { receipts: chains.flatMap((c) => c.receipts) });
      const boundaries = chains.flatMap((c) => (c.boundary ? [c.boundary] : []));
      if (boundaries.length) await send(app, "POST", "/api/v1/boundaries", { boundaries });
      counts.receipts += CHAINS_PER_BATCH * PASSES_PER_CHAIN;
      // Cached originals: stored, retrieved, and now and then a large one.
      const original = scaleOriginal(first);
      if (first % 2000 === 0) original.original = original.original.padEnd(2_000_000, " ");
      await send(app, "POST", "/api/v1/originals", original);
      const stored = (await (await fetch(`${app.baseUrl}/api/v1/originals?limit=1`)).json()) as {
        items: { hash: string }[];
      };
      if (stored.items[0]) await send(app, "POST", "/api/v1/retrieve", { hash: stored.items[0].hash });
      counts.originals++;
      await sleep(200);
    }
  };
  // Every chain new, so sources keep coming and what the threads keep must stay bounded.
  const measured = async () => {
    for (let batch = 0; MEASURED && Date.now() < deadline; batch++) {
      const [receipts] = contentBatches({
        prefix: `soak-measured-${batch}`,
        chains: MEASURED_CHAINS,
        passesPerBatch: 5,
        batches: 1,
        contentBytes: 4096,
        contentClass: "default",
        withContent: true,
        seed: batch,
      });
      await send(app, "POST", "/api/v1/passes", { receipts });
      counts.measured += receipts?.length ?? 0;
      await sleep(1_000);
    }
  };
  const pages = [
    "/",
    "/?range=all",
    "/chains",
    "/chains?status=floor_breached",
    "/chains?q=00",
    "/policies",
    "/originals",
    "/traces",
    "/api/v1/chains?sort=min_density",
    "/api/v1/originals",
    "/api/v1/exports/chains?format=csv&status=collapse_imminent",
  ];
  const read = async () => {
    for (let i = 0; Date.now() < deadline; i++) {
      const page = pages[i % (pages.length + 1)] ?? `/chains/${chainIdOf(i % Math.max(1, nextChain))}`;
      await send(app, "GET", page);
      counts.reads++;
    }
  };
  // A browser tab on a chain page: one stream, closed after a while and opened again.
  const stream = async (k: number) => {
    await sleep(2_000 + k * 500);
    while (Date.now() < deadline) {
      const controller = new AbortController();
      const until = Math.min(deadline, Date.now() + STREAM_LIFETIME_MS);
      const timer = setTimeout(() => controller.abort(), until - Date.now());
      try {
        const chainId = chainIdOf(Math.max(0, nextChain - 1 - k));
        const response = await fetch(`${app.baseUrl}/api/v1/chains/${chainId}/events`, { signal: controller.signal });
        counts.streams++;
        const decoder = new TextDecoder();
        if (response.body) {
          for await (const chunk of response.body) counts.events += decoder.decode(chunk).split("event:").length - 1;
        }
      } catch {
        // aborted at the end of its lifetime
      } finally {
        clearTimeout(timer);
      }
    }
  };
  await Promise.all([ingest(), measured(), read(), read(), ...Array.from({ length: STREAMS }, (_, k) => stream(k))]);
}

async function soak(name: string, appEnv: Record<string, string>): Promise<string[]> {
  const port = await findFreePort(...PORTS);
  console.log(`\n[${name}] starting the app on port ${port} (builds ${DIST_DIR} first when stale)...`);
  const app = await startApp({
    port,
    distDir: DIST_DIR,
    env: { FLOORLINE_DEMO: "0", FLOORLINE_API_TOKEN: "", FLOORLINE_AUTH: "off", NODE_ENV: "production", ...appEnv },
  });
  try {
    for (const [contentClass, policy] of Object.entries(SCALE_POLICIES))
      await send(app, "PUT", `/api/v1/policies/${contentClass}`, policy);
    const samples: number[] = [];
    let treePeak = 0;
    const sample = () => {
      const rss = serverRss(app.pid);
      samples.push(rss.server);
      treePeak = Math.max(treePeak, rss.tree);
    };
    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    const counts: Counts = { receipts: 0, reads: 0, streams: 0, events: 0, originals: 0, measured: 0 };
    sample();
    const sampler = setInterval(sample, 1000);
    const heaps: { at: number; heap: HeapSample }[] = [];
    let reading = false;
    const heapSampler = setInterval(() => {
      if (reading) return;
      reading = true;
      const at = (Date.now() - started) / 1000;
      void heapSample(app)
        .then((heap) => heap && heaps.push({ at, heap }))
        .finally(() => {
          reading = false;
        });
    }, HEAP_EVERY_MS);
    try {
      await load(app, deadline, counts);
    } finally {
      clearInterval(sampler);
      clearInterval(heapSampler);
    }
    console.log(`[${name}] server RSS, MB, one sample a second (10 a line):`);
    for (let i = 0; i < samples.length; i += 10)
      console.log(
        `  ${String(i).padStart(4)}s  ${samples
          .slice(i, i + 10)
          .map((s) => s.toFixed(0).padStart(4))
          .join(" ")}`,
      );
    console.log(
      `[${name}] V8 heap from /metrics, MB, used / total / external, one sample each ${HEAP_EVERY_MS / 1000} s:`,
    );
    for (let i = 0; i < heaps.length; i += 6)
      console.log(
        `  ${String(Math.round(heaps[i]?.at ?? 0)).padStart(4)}s  ${heaps
          .slice(i, i + 6)
          .map(({ heap }) =>
            `${heap.used.toFixed(0)}/${heap.total.toFixed(0)}/${heap.external.toFixed(0)}`.padStart(12),
          )
          .join(" ")}`,
      );
    // The least heap in use within a minute is close to what survives a full collection: if
    // that rises from the second minute to the last, something is kept that should not be.
    const leastUsed = (from: number, to: number) => {
      const used = heaps.filter((h) => h.at >= from && h.at < to).map((h) => h.heap.used);
      return used.length ? Math.min(...used).toFixed(0) : "-";
    };
    const elapsed = (Date.now() - started) / 1000;
    const trend = samples.slice(-TREND_SECONDS).map((y, x): [number, number] => [x, y]);
    const perMinute = slope(trend) * 60;
    const peak = Math.max(...samples);
    console.log(
      `[${name}] ${counts.receipts.toLocaleString("en-US")} receipts and ${counts.measured.toLocaleString("en-US")} measured ones, ${counts.reads.toLocaleString("en-US")} page/list reads, ` +
        `${counts.originals} originals stored and retrieved, ${counts.streams} event streams opened (${counts.events} events)`,
    );
    return [
      name,
      `${Math.round((Date.now() - started) / 1000)} s`,
      (samples[0] ?? 0).toFixed(0),
      peak.toFixed(0),
      (samples.at(-1) ?? 0).toFixed(0),
      `${perMinute >= 0 ? "+" : ""}${perMinute.toFixed(2)}`,
      peak <= TARGET_PEAK_MB ? "yes" : "NO",
      heaps.length ? Math.max(...heaps.map((h) => h.heap.total)).toFixed(0) : "-",
      `${leastUsed(60, 120)} / ${leastUsed(elapsed - 60, elapsed + 1)}`,
      treePeak.toFixed(0),
    ];
  } finally {
    await app.stop();
  }
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
    `bench:soak, ${SECONDS} s per database on ${os.cpus().length} CPUs (load average ${(os.loadavg()[0] ?? 0).toFixed(1)}); ` +
      `${STREAMS} event streams, 2 readers, 1 writer, ${MEASURED ? `${MEASURED_CHAINS} new measured chains a second` : "no measured receipts"}; server node flags: ${serverNodeFlags().join(" ") || "none"}` +
      `${env.NODE_OPTIONS ? `, NODE_OPTIONS=${env.NODE_OPTIONS}` : ""}`,
  );
  const rows: string[][] = [];
  if (env.SOAK_ONLY !== "pglite") {
    const adminUrl = adminUrlFromEnv();
    const unreachable = adminUrl ? await unreachableReason(adminUrl) : "no BENCH_DATABASE_URL or TEST_DATABASE_URL";
    if (!adminUrl || unreachable) {
      console.log(`PostgreSQL half skipped: ${unreachable}`);
    } else {
      let db: BenchDatabase | undefined;
      try {
        db = await createDatabase(adminUrl, "floorline_soak");
        rows.push(await soak("PostgreSQL", { DATABASE_URL: db.url }));
      } finally {
        await dropSoon(db);
      }
    }
  }
  if (env.SOAK_ONLY !== "postgres") {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-soak-"));
    try {
      rows.push(await soak("PGlite", { DATABASE_URL: "", FLOORLINE_DATA_DIR: dataDir }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log("");
  printTable(
    [
      "database",
      "ran",
      "start MB",
      "peak MB",
      "end MB",
      `MB/min over last ${TREND_SECONDS} s`,
      `peak <= ${TARGET_PEAK_MB}`,
      "heap total peak MB",
      "least heap used MB, 2nd / last minute",
      "peak MB with the start script",
    ],
    rows,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
