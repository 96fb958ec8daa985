// Long because its cases (bare, content, canaries) share the app's start, the raw-insert
// baseline and the receipts they post.
// `npm run bench:ingest`: receipts per second through POST /api/v1/passes (the built app over
// real HTTP, 5,000-receipt batches, PostgreSQL) against the fastest raw insert of the same
// rows into the same table (postgres.js, `insert ... select from unnest(...)` of one array
// per column: one statement per batch, no parameter cap), in one run, and the ratio. The
// app's time runs until its chain summaries have caught up with the last batch (the
// summariser folds them right after each ingest answers), so work it defers still counts.
// BENCH_BATCH_TIMES=1 also prints every batch's time on both sides.
//
// Then the content case: the same receipts posted once without content and once with 4 KiB
// of content each (pass 1 bringing the chain's source, so every pass is checked and measured
// against it: docs/measurement.md), in 1,000-receipt batches (5,000 receipts of 4 KiB would
// pass the body limit), and the ratio of their receipts/s. BENCH_INGEST_ONLY=content runs
// only that case; BENCH_CONTENT_BYTES changes the content size. Beside it, the same measured
// receipts with four canaries planted on each chain's pass 1 (docs/canaries.md), so every later
// pass's content is read for them, and the ratio to the same without canaries.
import os from "node:os";
import postgres from "postgres";
import { openDatabase } from "@/db/index";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import { MAX_PASS_BATCH } from "@/lib/schemas/passes";
import { plantCanaries } from "@/lib/canaries/canaries";
import { adminUrlFromEnv, createDatabase, unreachableReason, type BenchDatabase } from "./support/postgres";
import { contentBatches, type ContentReceipt } from "./support/content-receipts";
import {
  chainBatches,
  STORED_PASS_COLUMNS,
  toStoredRow,
  type BenchPolicy,
  type StoredPassRow,
  type WireReceipt,
} from "./support/receipts";
import { formatRate, printTable, ratioLine } from "./support/report";
import { findFreePort, startApp, type RunningApp } from "./support/server";
import { at } from "../support/at";

const DIST_DIR = process.env.NEXT_DIST_DIR || ".next-bench";
const PORTS = [3500, 3599] as const;
const TARGET = 0.5;
// The type of each column's array in the unnest baseline.
const COLUMN_TYPES: Record<(typeof STORED_PASS_COLUMNS)[number], string> = {
  chain_id: "text",
  pass_id: "text",
  pass_number: "bigint",
  input_content_hash: "text",
  current_content_hash: "text",
  current_size_bytes: "bigint",
  is_parseable: "boolean",
  schema_valid: "boolean",
  semantic_density_score: "double precision",
  content_class: "text",
  metadata: "jsonb",
  client_verdict: "text",
  client_manifest_digest: "text",
  verdict: "text",
  directive: "text",
  manifest_digest: "text",
  policy_version: "integer",
  client_mismatch: "boolean",
  effective_verdict: "text",
  body_digest: "text",
  created_at: "timestamptz",
};
const BENCH_POLICY = { min_size_bytes: 256, min_semantic_density: 0.3, max_pass_number: 100_000 };

interface Scenario {
  name: string;
  prefix: string;
  chains: number;
  passesPerBatch: number;
  batches: number;
}

// Each batch is MAX_PASS_BATCH receipts: chains x passesPerBatch.
const SCENARIOS: Scenario[] = [
  {
    name: "many chains (2,500 chains, +2 passes each per batch)",
    prefix: "many",
    chains: 2_500,
    passesPerBatch: 2,
    batches: 8,
  },
  {
    name: "few long chains (5 chains, +1,000 passes each per batch)",
    prefix: "long",
    chains: 5,
    passesPerBatch: 1_000,
    batches: 8,
  },
];
const WARMUP: Scenario = { name: "warm-up", prefix: "warm", chains: 1_000, passesPerBatch: 5, batches: 2 };
/** The content case: 1,000-receipt batches (200 chains, +5 passes each), with and without content. */
const CONTENT_CASE = { chains: 200, passesPerBatch: 5, batches: 6 };
/** The content case's target: issue 40's, measured receipts against the same without content. */
const CONTENT_TARGET = 0.3;
const CANARY_TARGET = 0.9;

/** Seconds per batch, in order. */
type BatchTimes = number[];

async function putPolicy(app: RunningApp, contentClass: string): Promise<BenchPolicy> {
  const response = await fetch(`${app.baseUrl}/api/v1/policies/${contentClass}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(BENCH_POLICY),
  });
  if (!response.ok) throw new Error(`PUT policy answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { version: number };
  return { content_class: contentClass, ...BENCH_POLICY, version: body.version };
}

async function postBatch(app: RunningApp, body: string, expected: number): Promise<number> {
  const start = process.hrtime.bigint();
  const response = await fetch(`${app.baseUrl}/api/v1/passes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const text = await response.text();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (response.status !== 201)
    throw new Error(`POST /api/v1/passes answered ${response.status}: ${text.slice(0, 500)}`);
  const { results } = JSON.parse(text) as { results: unknown[] };
  if (results.length !== expected) throw new Error(`expected ${expected} results, got ${results.length}`);
  return seconds;
}

/** One array per column, as text (postgres.js sends arrays of mixed nulls most reliably that way), cast in SQL. */
function columnArrays(rows: readonly StoredPassRow[]): (string | null)[][] {
  return STORED_PASS_COLUMNS.map((column) =>
    rows.map((row) => {
      const value = row[column];
      if (value === null || value === undefined) return null;
      if (value instanceof Date) return value.toISOString();
      if (typeof value === "boolean") return value ? "t" : "f";
      if (typeof value === "object") return JSON.stringify(value);
      return String(value);
    }),
  );
}

async function insertRaw(raw: postgres.Sql, rows: readonly StoredPassRow[]): Promise<number> {
  // Converting to column arrays is the client's own work, outside the timing (the app's
  // side is timed from the request, with its JSON already built).
  const arrays = columnArrays(rows);
  const columns = STORED_PASS_COLUMNS.join(", ");
  const unnest = STORED_PASS_COLUMNS.map((c, i) => `$${i + 1}::text[]::${COLUMN_TYPES[c]}[]`).join(", ");
  const start = process.hrtime.bigint();
  // One transaction per batch, as the app has: the batch is all or nothing on both sides.
  await raw.begin(async (tx) => {
    await tx.unsafe(`insert into passes (${columns}) select * from unnest(${unnest})`, arrays as never);
  });
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/**
 * Seconds until the app shows what it was sent: a list read waits for the summariser to fold
 * every pass stored before it (db/ingest/summaries.ts), so the chains are in the summaries
 * once it answers.
 */
async function settle(app: RunningApp): Promise<number> {
  const start = process.hrtime.bigint();
  const response = await fetch(`${app.baseUrl}/api/v1/chains?limit=1`);
  await response.text();
  if (!response.ok) throw new Error(`GET /api/v1/chains answered ${response.status}`);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/**
 * Runs one scenario on each side, the app's batches back to back as an agent's exporter
 * sends them, then until the app has folded the last of them into its chain summaries; the
 * raw inserts after. Each side's time is the sum of its batches (the app's with the settle).
 */
async function runScenario(
  app: RunningApp,
  raw: postgres.Sql,
  scenario: Scenario,
  policyOf: (contentClass: string) => BenchPolicy,
  seed: number,
) {
  const appTimes: BatchTimes = [];
  const rawTimes: BatchTimes = [];
  const batches = [
    ...chainBatches({
      ...scenario,
      // One chain in ten has no policy of its own and is judged by the conservative default.
      contentClassOf: (i) => (i % 10 === 0 ? "default" : "bench"),
      policyOf,
      seed,
    }),
  ];
  for (const batch of batches) {
    if (batch.length !== MAX_PASS_BATCH) throw new Error(`batch of ${batch.length}, expected ${MAX_PASS_BATCH}`);
  }
  const bodies = batches.map((batch) => JSON.stringify({ receipts: batch }));
  for (const [i, batch] of batches.entries()) appTimes.push(await postBatch(app, bodies[i] as string, batch.length));
  const settled = await settle(app);
  for (const batch of batches) {
    rawTimes.push(
      await insertRaw(
        raw,
        batch.map((r: WireReceipt) => toStoredRow(r, policyOf(r.content_class))),
      ),
    );
  }
  if (process.env.BENCH_BATCH_TIMES === "1") {
    const ms = (times: BatchTimes) => times.map((t) => (t * 1000).toFixed(0)).join(" ");
    console.log(
      `${scenario.prefix}: app ms per batch ${ms(appTimes)}, then ${(settled * 1000).toFixed(0)} until folded; raw ${ms(rawTimes)}`,
    );
  }
  const sum = (times: BatchTimes) => times.reduce((a, t) => a + t, 0);
  return {
    receipts: scenario.batches * MAX_PASS_BATCH,
    appSeconds: sum(appTimes) + settled,
    rawSeconds: sum(rawTimes),
  };
}

/** Seconds to post `batches` back to back and see them folded, as runScenario times the app. */
async function postAll(app: RunningApp, batches: readonly ContentReceipt[][]): Promise<number> {
  const bodies = batches.map((batch) => JSON.stringify({ receipts: batch }));
  let seconds = 0;
  for (const [i, batch] of batches.entries()) seconds += await postBatch(app, bodies[i] as string, batch.length);
  return seconds + (await settle(app));
}

/**
 * The same receipts without content, with content but no source (checked, not measured), and
 * with content and source (measured), in turn, twice, on fresh chains each time, so the
 * machine's drift falls on every side; receipts/s of each over both runs, and the ratio the
 * target is on: measured against without content.
 */
async function runContentCase(app: RunningApp): Promise<void> {
  const bytes = Number(process.env.BENCH_CONTENT_BYTES ?? 4096);
  const times = { bare: 0, checked: 0, content: 0, canaries: 0 };
  let receipts = 0;
  for (let round = 0; round < 2; round++) {
    for (const side of ["bare", "checked", "content", "canaries"] as const) {
      const batches = contentBatches({
        ...CONTENT_CASE,
        prefix: `${side}${round}`,
        contentBytes: bytes,
        contentClass: "bench",
        withContent: side !== "bare",
        withSource: side === "content" || side === "canaries",
        seed: 500 + round,
      });
      // Planted on pass 1, as the SDKs send them: every later pass's content is read for them.
      const sent =
        side === "canaries"
          ? batches.map((batch) =>
              batch.map((r) =>
                r.pass_number === 1
                  ? { ...r, canaries: plantCanaries(r.input_content ?? "", { count: 4, seed: r.chain_id }).canaries }
                  : r,
              ),
            )
          : batches;
      times[side] += await postAll(app, sent);
      if (side === "bare") receipts += batches.reduce((n, b) => n + b.length, 0);
    }
  }
  const bareRate = receipts / times.bare;
  const contentRate = receipts / times.content;
  printTable(
    ["content case", "receipts", "POST /api/v1/passes /s"],
    [
      ["the receipts without content", receipts.toLocaleString("en-US"), formatRate(bareRate)],
      [
        `the same with ${bytes.toLocaleString("en-US")} B of content each, no source: checked, not measured`,
        receipts.toLocaleString("en-US"),
        formatRate(receipts / times.checked),
      ],
      [
        `the same with ${bytes.toLocaleString("en-US")} B of content each, measured`,
        receipts.toLocaleString("en-US"),
        formatRate(contentRate),
      ],
      [
        "the same, measured, with 4 canaries planted on each chain's pass 1",
        receipts.toLocaleString("en-US"),
        formatRate(receipts / times.canaries),
      ],
    ],
  );
  console.log(
    `${CONTENT_CASE.chains * CONTENT_CASE.passesPerBatch}-receipt batches, ${CONTENT_CASE.batches} per run, two runs each side (alternating), each until folded`,
  );
  console.log(ratioLine("with content / without", contentRate / bareRate, CONTENT_TARGET));
  console.log(ratioLine("with content and canaries / with content", times.content / times.canaries, CANARY_TARGET));
}

/** The stored receipts of both databases, reduced to one digest: equal digests mean the baseline wrote the same rows. */
async function storedDigest(url: string): Promise<{ count: number; digest: string }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ count: number; digest: string }[]>`
      select count(*)::int as count, md5(string_agg(
        concat_ws('|', chain_id, pass_id, pass_number, input_content_hash, current_content_hash, current_size_bytes,
          is_parseable, schema_valid, semantic_density_score, content_class, metadata::text, client_verdict,
          client_manifest_digest, verdict, directive, manifest_digest, policy_version, client_mismatch, body_digest,
          created_at),
        ',' order by chain_id, pass_id)) as digest
      from passes`;
    return at(rows, 0);
  } finally {
    await sql.end();
  }
}

async function main(): Promise<void> {
  const adminUrl = adminUrlFromEnv();
  if (!adminUrl) {
    console.log(
      "bench:ingest needs PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL (a role that may create databases). Skipped.",
    );
    return;
  }
  const unreachable = await unreachableReason(adminUrl);
  if (unreachable) {
    console.log(`bench:ingest: PostgreSQL at ${new URL(adminUrl).host} is not reachable (${unreachable}). Skipped.`);
    return;
  }

  const databases: BenchDatabase[] = [];
  let app: RunningApp | undefined;
  let raw: postgres.Sql | undefined;
  const cleanUp = async () => {
    await app?.stop();
    await raw?.end({ timeout: 5 }).catch(() => {});
    for (const db of databases)
      await db.drop().catch((error: unknown) => console.error(`could not drop ${db.name}:`, error));
  };
  process.once("SIGINT", () => void cleanUp().finally(() => process.exit(130)));

  try {
    const appDb = await createDatabase(adminUrl, "floorline_bench");
    databases.push(appDb);
    const rawDb = await createDatabase(adminUrl, "floorline_bench");
    databases.push(rawDb);
    // The baseline table must be the app's table: same migrations, same indexes and constraints.
    await (await openDatabase({ url: rawDb.url })).close();

    const port = await findFreePort(...PORTS);
    console.log(`starting the app on port ${port} (NEXT_DIST_DIR=${DIST_DIR}; builds first if the build is stale)...`);
    app = await startApp({
      port,
      distDir: DIST_DIR,
      env: { DATABASE_URL: appDb.url, FLOORLINE_DEMO: "0", FLOORLINE_API_TOKEN: "", NODE_ENV: "production" },
    });
    raw = postgres(rawDb.url, { max: 1, onnotice: () => {} });

    const benchPolicy = await putPolicy(app, "bench");
    const defaultPolicy: BenchPolicy = { content_class: "default", ...CONSERVATIVE_DEFAULT_POLICY, version: 0 };
    const policyOf = (contentClass: string) => (contentClass === "bench" ? benchPolicy : defaultPolicy);

    const { server_version: serverVersion } = at(await raw<{ server_version: string }[]>`show server_version`, 0);
    console.log(
      `PostgreSQL ${serverVersion}, node ${process.versions.node}, ${os.cpus().length} CPUs; ` +
        `${MAX_PASS_BATCH}-receipt batches; raw baseline: one INSERT ... SELECT FROM unnest(column arrays) per batch, in a transaction\n`,
    );

    await runScenario(app, raw, WARMUP, policyOf, 1);
    if (process.env.BENCH_INGEST_ONLY === "content") {
      await runContentCase(app);
      return;
    }
    const rows: string[][] = [];
    const total = { receipts: 0, appSeconds: 0, rawSeconds: 0 };
    const addRow = (name: string, r: typeof total) => {
      const appRate = r.receipts / r.appSeconds;
      const rawRate = r.receipts / r.rawSeconds;
      rows.push([
        name,
        r.receipts.toLocaleString("en-US"),
        formatRate(appRate),
        formatRate(rawRate),
        (appRate / rawRate).toFixed(2),
      ]);
    };
    for (const [i, scenario] of SCENARIOS.entries()) {
      const result = await runScenario(app, raw, scenario, policyOf, 100 + i);
      addRow(scenario.name, result);
      total.receipts += result.receipts;
      total.appSeconds += result.appSeconds;
      total.rawSeconds += result.rawSeconds;
    }
    addRow("all", total);
    printTable(["scenario", "receipts", "POST /api/v1/passes /s", "raw unnest INSERT /s", "ratio"], rows);
    console.log("");
    console.log(
      `receipts/s over all batches of each side, the app's until its chain summaries were folded; ${WARMUP.batches} warm-up batches not counted`,
    );
    console.log(ratioLine("POST / raw unnest INSERT", total.rawSeconds / total.appSeconds, TARGET));

    const [a, b] = await Promise.all([storedDigest(appDb.url), storedDigest(rawDb.url)]);
    console.log(
      a.digest === b.digest
        ? `stored rows: ${a.count} in each database, identical`
        : `stored rows DIFFER: app ${a.count} (${a.digest}), raw ${b.count} (${b.digest})`,
    );
    console.log("");
    await runContentCase(app);
  } finally {
    await cleanUp();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
