// `npm run bench:streams`: ingest through `POST /api/v1/passes` on the built app with no event
// stream open, then with 1,000 open (ten on each of 100 live chains), same receipts shape:
// BENCH_ROUNDS batches without streams, then as many with them (not alternated: opening 1,000
// streams between rounds would cost more than the rounds). Prints both rates and their ratio;
// target: with streams >= 0.8 of without. PostgreSQL when BENCH_DATABASE_URL /
// TEST_DATABASE_URL is set, else the embedded database. Asserts nothing.
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { adminUrlFromEnv, createDatabase, unreachableReason, type BenchDatabase } from "./support/postgres";
import { chainBatches } from "./support/receipts";
import { formatRate, median, printTable, ratioLine } from "./support/report";
import { findFreePort, startApp } from "./support/server";

const DIST_DIR = process.env.NEXT_DIST_DIR || ".next-bench";
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000);
const LIVE_CHAINS = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const BATCH_CHAINS = 500;
const POLICY = { min_size_bytes: 256, min_semantic_density: 0.5, max_pass_number: 4 };

async function post(baseUrl: string, receipts: unknown[]): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/passes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ receipts }),
  });
  await response.arrayBuffer();
  if (response.status !== 201 && response.status !== 200) throw new Error(`ingest answered ${response.status}`);
}

/** Opens one event stream and keeps reading it; resolves once its first event arrived. */
function openStream(port: number, chainId: string, agent: http.Agent): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: "127.0.0.1", port, agent, path: `/api/v1/chains/${encodeURIComponent(chainId)}/events` },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`stream answered ${response.statusCode}`));
        response.once("data", () => resolve(request));
        response.on("data", () => {});
        response.on("error", () => {});
      },
    );
    request.on("error", reject);
  });
}

async function main(): Promise<void> {
  const adminUrl = adminUrlFromEnv();
  let database: BenchDatabase | null = null;
  if (adminUrl) {
    const reason = await unreachableReason(adminUrl);
    if (reason) console.log(`PostgreSQL unreachable (${reason}): using the embedded database`);
    else database = await createDatabase(adminUrl, "floorline_bench_streams");
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-streams-bench-"));
  const port = await findFreePort(3400, 3449);
  const app = await startApp({
    port,
    distDir: DIST_DIR,
    env: {
      DATABASE_URL: database?.url ?? "",
      FLOORLINE_DATA_DIR: dataDir,
      FLOORLINE_DEMO: "0",
      FLOORLINE_MAX_EVENT_STREAMS: String(STREAMS + 10),
      LOG_LEVEL: "warn",
    },
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: STREAMS + 10 });
  const streams: http.ClientRequest[] = [];
  try {
    const live = [
      ...chainBatches({
        prefix: "live",
        chains: LIVE_CHAINS,
        passesPerBatch: 1,
        batches: 1,
        contentClassOf: () => "default",
        policyOf: () => POLICY,
        seed: 1,
      }),
    ];
    for (const batch of live) await post(app.baseUrl, batch);
    // Ingest batches go to chains of their own and to the live ones, so streams see changes.
    const batches = [
      ...chainBatches({
        prefix: "ingest",
        chains: BATCH_CHAINS,
        passesPerBatch: 2,
        batches: ROUNDS * 2 + 1,
        contentClassOf: () => "default",
        policyOf: () => POLICY,
        seed: 2,
      }),
    ];
    const liveMore = [
      ...chainBatches({
        prefix: "live",
        chains: LIVE_CHAINS,
        passesPerBatch: 1,
        batches: ROUNDS * 2 + 2,
        contentClassOf: () => "default",
        policyOf: () => POLICY,
        seed: 1,
      }),
    ].slice(1);
    const rate = async (i: number) => {
      const receipts = [...(batches[i] ?? []), ...(liveMore[i] ?? [])];
      const started = performance.now();
      await post(app.baseUrl, receipts);
      return receipts.length / ((performance.now() - started) / 1000);
    };
    await rate(0); // warm-up
    const without: number[] = [];
    const withStreams: number[] = [];
    for (let r = 0; r < ROUNDS; r++) without.push(await rate(1 + r * 2));
    for (let s = 0; s < STREAMS; s++) streams.push(await openStream(port, `live-${s % LIVE_CHAINS}`, agent));
    for (let r = 0; r < ROUNDS; r++) withStreams.push(await rate(2 + r * 2));
    const a = median(without);
    const b = median(withStreams);
    console.log(`database: ${database ? "PostgreSQL" : "embedded"}; ${STREAMS} streams on ${LIVE_CHAINS} chains`);
    printTable(
      ["ingest", "receipts/s (median)"],
      [
        ["no stream open", formatRate(a)],
        [`${STREAMS} streams open`, formatRate(b)],
      ],
    );
    console.log(ratioLine("with / without", b / a, 0.8));
  } finally {
    for (const s of streams) s.destroy();
    agent.destroy();
    await app.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
