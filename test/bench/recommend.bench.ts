// `npm run bench:recommend`: time to answer GET /api/v1/policies/{class}/recommendation (the
// built app over real HTTP) for one class of 100,000 chains of 10 passes (1,000,000 passes)
// on PostgreSQL, and of 10,000 chains on the embedded database. The chains are sent
// through POST /api/v1/passes and /api/v1/boundaries first. Prints; asserts nothing.
//
// BENCH_RECOMMEND_KEEP_DB=1 keeps the PostgreSQL database (floorline_bench_recommend_kept)
// after the run and reuses it, already seeded, on the next one; drop it by hand when done.
// BENCH_RECOMMEND_ONLY=postgres (or pglite) runs one of the two measurements.
// "first ms" is the first answer of a cold server on the table as seeded; the runs after it
// follow a `vacuum (analyze) passes` on PostgreSQL (what autovacuum does to a table in
// service), which lets the read skip the table and use the index alone.
import { mkdtempSync, rmSync } from "node:fs";
import postgres from "postgres";
import os from "node:os";
import path from "node:path";
import { adminUrlFromEnv, createDatabase, keptDatabase, unreachableReason } from "./support/postgres";
import { seededRandom } from "./support/receipts";
import { median, printTable } from "./support/report";
import { findFreePort, type RunningApp, startApp } from "./support/server";

const DIST_DIR = ".next-bench";
const PORTS = [3600, 3699] as const;
const TARGET_MS = 2_000;
const RUNS = 5;
const PASSES = 10;
const CHAINS_PER_BATCH = 500;
const CLASS = "bench-recommend";
const KEPT_DB = "floorline_bench_recommend_kept";
const POLICY = { min_size_bytes: 256, min_semantic_density: 0.5, max_pass_number: 8 };

/**
 * A chain of 10 passes shrinking by 5-20% each; a third of them lose density fast and break
 * (unparseable) at a random pass after dipping under a value of their own, some healthy ones
 * dip too, and one in twenty ends with a restore boundary.
 */
function* batches(chains: number, seed: number) {
  const random = seededRandom(seed);
  for (let from = 0; from < chains; from += CHAINS_PER_BATCH) {
    const receipts = [];
    const boundaries = [];
    for (let c = from; c < Math.min(chains, from + CHAINS_PER_BATCH); c++) {
      const id = `rec-${c}`;
      const failing = random() < 0.3;
      const breakAt = failing ? 4 + Math.floor(random() * 7) : Number.POSITIVE_INFINITY;
      let size = 20_000 + Math.floor(random() * 80_000);
      let density = 0.85 + random() * 0.15;
      for (let n = 1; n <= PASSES; n++) {
        size = Math.max(64, Math.floor(size * (0.8 + random() * 0.15)));
        density = Math.max(0, density - random() * (failing ? 0.12 : 0.05));
        receipts.push({
          chain_id: id,
          pass_id: `${id}.p${n}`,
          pass_number: n,
          current_content_hash: `${id}:${n}`,
          current_size_bytes: size,
          is_parseable: n !== breakAt,
          schema_valid: true,
          semantic_density_score: Math.round(density * 1e6) / 1e6,
          content_class: CLASS,
        });
      }
      if (!failing && random() < 0.05) {
        boundaries.push({
          chain_id: id,
          pass_number: PASSES,
          strategy: "restore",
          reason: "bench",
          restore_pass_id: `${id}.p${PASSES - 1}`,
        });
      }
    }
    yield { receipts, boundaries };
  }
}

async function send(app: RunningApp, path: string, body: unknown, method = "POST"): Promise<void> {
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
}

type Outcome = {
  policy?: unknown;
  failures_caught: number;
  failures_missed: number;
  healthy_halted_early: number;
  compression_kept: number;
};
type Answer = { based_on: unknown; current: Outcome; options: (Outcome & { name: string })[] };

async function timeRecommendation(app: RunningApp): Promise<{ ms: number; body: Answer }> {
  const start = performance.now();
  const response = await fetch(`${app.baseUrl}/api/v1/policies/${CLASS}/recommendation`);
  const body = (await response.json()) as Answer;
  const ms = performance.now() - start;
  if (!response.ok) throw new Error(`recommendation answered ${response.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

async function classPasses(app: RunningApp): Promise<number> {
  const response = await fetch(`${app.baseUrl}/api/v1/policies/${CLASS}/recommendation`);
  const body = (await response.json()) as { based_on?: { passes: number }; error?: { chains?: number } };
  return body.based_on?.passes ?? 0;
}

async function measure(
  label: string,
  chains: number,
  env: Record<string, string>,
  reuse = false,
  afterFirst?: () => Promise<void>,
): Promise<string[]> {
  const port = await findFreePort(...PORTS);
  console.log(`\n[${label}] starting the app on port ${port} (builds ${DIST_DIR} first when stale)…`);
  const app = await startApp({ port, distDir: DIST_DIR, env: { FLOORLINE_DEMO: "0", ...env } });
  try {
    const seeded = reuse ? await classPasses(app) : 0;
    if (seeded === chains * PASSES) {
      console.log(`[${label}] reusing the ${seeded.toLocaleString("en-US")} passes already seeded`);
    } else {
      if (seeded > 0) throw new Error(`the kept database holds ${seeded} passes of ${CLASS}, not ${chains * PASSES}`);
      await send(app, `/api/v1/policies/${CLASS}`, POLICY, "PUT");
      const seeding = performance.now();
      for (const batch of batches(chains, 15)) {
        await send(app, "/api/v1/passes", { receipts: batch.receipts });
        if (batch.boundaries.length > 0) await send(app, "/api/v1/boundaries", { boundaries: batch.boundaries });
      }
      console.log(
        `[${label}] sent ${(chains * PASSES).toLocaleString("en-US")} passes in ${((performance.now() - seeding) / 1000).toFixed(0)} s`,
      );
    }
    const first = await timeRecommendation(app);
    console.log(`[${label}] first answer (cold server, table as seeded) in ${first.ms.toFixed(0)} ms`);
    if (afterFirst) await afterFirst();
    const times: number[] = [];
    let body = first.body;
    for (let run = 0; run < RUNS; run++) {
      const result = await timeRecommendation(app);
      times.push(result.ms);
      body = result.body;
    }
    console.log(`[${label}] based on ${JSON.stringify(body.based_on)}`);
    for (const o of [{ name: "current", ...body.current }, ...body.options]) {
      console.log(
        `[${label}]   ${o.name.padEnd(8)} ${JSON.stringify(o.policy)} caught ${o.failures_caught}, missed ${o.failures_missed}, halted early ${o.healthy_halted_early}, kept ${(o.compression_kept * 100).toFixed(1)}%`,
      );
    }
    const typical = median(times);
    console.log(
      `[${label}] recommendation in ${typical.toFixed(0)} ms (median of ${RUNS}; target < ${TARGET_MS} ms on PostgreSQL): ${typical < TARGET_MS ? "met" : "NOT met"}`,
    );
    return [
      label,
      (chains * PASSES).toLocaleString("en-US"),
      first.ms.toFixed(0),
      typical.toFixed(0),
      Math.min(...times).toFixed(0),
      Math.max(...times).toFixed(0),
    ];
  } finally {
    await app.stop();
  }
}

/**
 * What autovacuum does to a table in service: the read is index-only only for pages the
 * visibility map marks all-visible, which a bulk load leaves unmarked until a vacuum.
 */
async function vacuum(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const start = performance.now();
    await sql`vacuum (analyze) passes`;
    console.log(
      `[PostgreSQL] vacuum (analyze) passes, as autovacuum would: ${(performance.now() - start).toFixed(0)} ms`,
    );
  } finally {
    await sql.end();
  }
}

async function main() {
  console.log(`recommendation bench on ${os.cpus().length} CPU(s), load average ${(os.loadavg()[0] ?? 0).toFixed(1)}`);
  const rows: string[][] = [];
  const only = process.env.BENCH_RECOMMEND_ONLY;
  const keep = process.env.BENCH_RECOMMEND_KEEP_DB === "1";
  const adminUrl = adminUrlFromEnv();
  const reason = adminUrl ? await unreachableReason(adminUrl) : "BENCH_DATABASE_URL / TEST_DATABASE_URL not set";
  if (only === "pglite") {
    console.log("\n[PostgreSQL] skipped: BENCH_RECOMMEND_ONLY=pglite");
  } else if (adminUrl && !reason) {
    const db = keep
      ? await keptDatabase(adminUrl, KEPT_DB)
      : await createDatabase(adminUrl, "floorline_bench_recommend");
    try {
      rows.push(
        await measure("PostgreSQL, 100,000 chains", 100_000, { DATABASE_URL: db.url }, keep, () => vacuum(db.url)),
      );
    } finally {
      if (keep) console.log(`[PostgreSQL] kept database ${db.name} (BENCH_RECOMMEND_KEEP_DB=1)`);
      else await db.drop().catch((error) => console.warn(`could not drop ${db.name}: ${(error as Error).message}`));
    }
  } else {
    console.log(`\n[PostgreSQL] skipped: ${reason}`);
  }
  if (only === "postgres") {
    console.log("");
    printTable(["database", "passes", "first ms", "median ms", "min", "max"], rows);
    return;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-bench-recommend-"));
  try {
    rows.push(
      await measure("embedded (PGlite), 10,000 chains", 10_000, { FLOORLINE_DATA_DIR: dataDir, DATABASE_URL: "" }),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log("");
  printTable(["database", "passes", "first ms", "median ms", "min", "max"], rows);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
