// `npm run bench:otlp`: receipts per second through OTLP (POST /api/v1/otlp/v1/traces,
// protobuf, gzip, as the official exporter sends them) against JSON POST /api/v1/passes with
// the same receipts, on the built app over real HTTP, in one run, and the ratio.
// PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set, else the embedded database.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { decodeExportResponse } from "@/lib/otlp/codec";
import { PASS_ATTRIBUTES } from "@/lib/otlp/receipts";
import { adminUrlFromEnv, type BenchDatabase, createDatabase, unreachableReason } from "./support/postgres";
import { chainBatches, type WireReceipt } from "./support/receipts";
import { formatRate, median, printTable, ratioLine } from "./support/report";
import { findFreePort, type RunningApp, startApp } from "./support/server";

const DIST_DIR = ".next-bench";
const PORTS = [3600, 3699] as const;
const TARGET = 0.5;
const BATCH = 5_000;
const BENCH_POLICY = { min_size_bytes: 256, min_semantic_density: 0.3, max_pass_number: 100_000 };

interface Scenario {
  name: string;
  chains: number;
  passesPerBatch: number;
  batches: number;
}
const SCENARIOS: Scenario[] = [
  { name: "many chains (2,500 chains, +2 passes each per batch)", chains: 2_500, passesPerBatch: 2, batches: 4 },
  { name: "few long chains (5 chains, +1,000 passes each per batch)", chains: 5, passesPerBatch: 1_000, batches: 4 },
];
const WARMUP: Scenario = { name: "warm-up", chains: 1_000, passesPerBatch: 5, batches: 2 };

/** A receipt as a span, through the real SDK; what an instrumented agent would record. */
function toOtlpBody(receipts: readonly WireReceipt[]): Uint8Array {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "bench-agent" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("floorline-bench");
  for (const r of receipts) {
    const attributes: Record<string, string | number | boolean> = {};
    for (const [field, attribute] of Object.entries(PASS_ATTRIBUTES)) {
      const value = r[field as keyof WireReceipt];
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
        attributes[attribute] = value;
      }
    }
    const end = Date.parse(r.created_at);
    const span = tracer.startSpan(`compress pass ${r.pass_number}`, { attributes, startTime: end - 5 });
    span.end(end);
  }
  const body = ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans());
  if (!body) throw new Error("the serializer produced no body");
  return gzipSync(body);
}

async function timed(request: () => Promise<Response>, check: (r: Response, body: Uint8Array) => void) {
  const start = process.hrtime.bigint();
  const response = await request();
  const body = new Uint8Array(await response.arrayBuffer());
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  check(response, body);
  return seconds;
}

async function runScenario(app: RunningApp, scenario: Scenario, seed: number) {
  const otlpTimes: number[] = [];
  const jsonTimes: number[] = [];
  // The same receipts on both sides, under different chain ids so neither side replays the other's.
  const batches = chainBatches({
    ...scenario,
    prefix: `${scenario.name.split(" ")[0]}-${seed}`,
    contentClassOf: (i) => (i % 10 === 0 ? "default" : "bench"),
    policyOf: () => BENCH_POLICY,
    seed,
  });
  for (const batch of batches) {
    if (batch.length !== BATCH) throw new Error(`batch of ${batch.length}, expected ${BATCH}`);
    // Metadata has no OTLP attribute: leave it out on both sides so they store the same rows.
    const receipts = batch.map(({ metadata: _, ...r }) => r);
    const otlpBody = toOtlpBody(receipts.map((r) => ({ ...r, chain_id: `otlp-${r.chain_id}` })));
    const jsonBody = JSON.stringify({ receipts: receipts.map((r) => ({ ...r, chain_id: `json-${r.chain_id}` })) });
    otlpTimes.push(
      await timed(
        () =>
          fetch(`${app.baseUrl}/api/v1/otlp/v1/traces`, {
            method: "POST",
            headers: { "content-type": "application/x-protobuf", "content-encoding": "gzip" },
            body: otlpBody as Uint8Array<ArrayBuffer>,
          }),
        (response, body) => {
          if (response.status !== 200)
            throw new Error(`OTLP answered ${response.status}: ${new TextDecoder().decode(body)}`);
          const result = decodeExportResponse(body, "protobuf");
          if (result.rejectedSpans !== 0)
            throw new Error(`OTLP rejected ${result.rejectedSpans}: ${result.errorMessage}`);
        },
      ),
    );
    jsonTimes.push(
      await timed(
        () =>
          fetch(`${app.baseUrl}/api/v1/passes`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: jsonBody,
          }),
        (response, body) => {
          if (response.status !== 201) {
            throw new Error(`/passes answered ${response.status}: ${new TextDecoder().decode(body).slice(0, 500)}`);
          }
        },
      ),
    );
  }
  return {
    receipts: scenario.batches * BATCH,
    otlpSeconds: median(otlpTimes) * otlpTimes.length,
    jsonSeconds: median(jsonTimes) * jsonTimes.length,
  };
}

async function main(): Promise<void> {
  const adminUrl = adminUrlFromEnv();
  let database: BenchDatabase | undefined;
  let dataDir: string | undefined;
  const env: Record<string, string> = { FLOORLINE_DEMO: "0", FLOORLINE_API_TOKEN: "", NODE_ENV: "production" };
  if (adminUrl && !(await unreachableReason(adminUrl))) {
    database = await createDatabase(adminUrl, "floorline_bench");
    env.DATABASE_URL = database.url;
  } else {
    dataDir = mkdtempSync(path.join(os.tmpdir(), `floorline-otlp-bench-${randomBytes(3).toString("hex")}-`));
    env.FLOORLINE_DATA_DIR = dataDir;
    env.DATABASE_URL = "";
  }
  let app: RunningApp | undefined;
  try {
    const port = await findFreePort(...PORTS);
    console.log(`starting the app on port ${port} (NEXT_DIST_DIR=${DIST_DIR}; builds first if the build is stale)...`);
    app = await startApp({ port, distDir: DIST_DIR, env });
    const put = await fetch(`${app.baseUrl}/api/v1/policies/bench`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(BENCH_POLICY),
    });
    if (!put.ok) throw new Error(`PUT policy answered ${put.status}`);
    console.log(
      `${database ? "PostgreSQL" : "embedded PGlite"}, node ${process.versions.node}, ${os.cpus().length} CPUs; ` +
        `${BATCH}-receipt batches, OTLP as protobuf + gzip built by the official serializer, alternating with JSON\n`,
    );
    await runScenario(app, WARMUP, 1);
    const rows: string[][] = [];
    const total = { receipts: 0, otlpSeconds: 0, jsonSeconds: 0 };
    const addRow = (name: string, r: typeof total) => {
      const otlp = r.receipts / r.otlpSeconds;
      const json = r.receipts / r.jsonSeconds;
      rows.push([
        name,
        r.receipts.toLocaleString("en-US"),
        formatRate(otlp),
        formatRate(json),
        (otlp / json).toFixed(2),
      ]);
    };
    for (const [i, scenario] of SCENARIOS.entries()) {
      const result = await runScenario(app, scenario, 100 + i);
      addRow(scenario.name, result);
      total.receipts += result.receipts;
      total.otlpSeconds += result.otlpSeconds;
      total.jsonSeconds += result.jsonSeconds;
    }
    addRow("all", total);
    printTable(["scenario", "receipts", "OTLP protobuf+gzip /s", "JSON /passes /s", "ratio"], rows);
    console.log("");
    console.log(`receipts/s from the median batch of each side; ${WARMUP.batches} warm-up batches not counted`);
    console.log(ratioLine("OTLP / JSON", total.jsonSeconds / total.otlpSeconds, TARGET));
  } finally {
    await app?.stop();
    await database?.drop().catch((error: unknown) => console.error(`could not drop ${database?.name}:`, error));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
