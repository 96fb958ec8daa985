// Demo data that teaches, made the way an agent makes receipts: the demo's agents
// (demo/scenarios.ts, demo/search-agents.ts) run the repository's compressors through the
// TypeScript SDK, which hashes, sizes, measures and guards every pass, and their clients
// deliver to the ingest use cases in this process (demo/transport.ts). Nothing about a
// pass is typed in: one healthy chain and one per failure mode, each failing because its
// content collapsed, plus the class behind the floor recommendation, the traces and the
// originals.
import { sql } from "drizzle-orm";
import { getDb } from "@/db/index";
import { col, onlyRow, queryRows } from "@/db/sql";
import { inProcessTransport } from "./transport";
import { updatePolicy } from "@/db/queries/policies";
import { storeTrace } from "@/db/queries/traces";
import { seedDemoTraces } from "@/db/demo-traces";
import { seedDemoOriginals } from "@/db/demo-originals";
import { DEMO_FLOORS, type DemoEnv, type DemoRole, runDemoChains } from "./scenarios";
import { runSearchAgents, SEARCH_CLASS, SEARCH_FLOOR } from "./search-agents";
import { runDemoLineage } from "./lineage";
import { logger } from "@/lib/observability/log";
import { Floorline, type FloorlineError, type Item } from "@/sdk/typescript/src/index";

/** The seed's classes (demo:agent sends the same chains to classes of its own). */
export const DEMO_CLASSES: Record<DemoRole, string> = {
  orders: "api-json",
  summary: "summary",
  base64: "base64-blob",
  logs: "logs",
};

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;

/** Receipts dated as the demo tells it: each chain from when it started, one pass every few minutes. */
class Timeline {
  private at = Date.now();
  private step = 4 * MINUTE;
  start(at: number, stepMs: number): void {
    this.at = at;
    this.step = stepMs;
  }
  readonly clock = (): Date => {
    const now = new Date(this.at);
    this.at += this.step;
    return now;
  };
}

async function databaseIsEmpty(): Promise<boolean> {
  const db = await getDb();
  const { n } = onlyRow(
    await queryRows(db, sql`select (select count(*) from passes) + (select count(*) from policies) as n`, {
      n: col.int,
    }),
  );
  return n === 0;
}

/** Seeds an empty database; returns how many chains it made (0 when there was data already). */
export async function seedDemoIfEmpty(): Promise<number> {
  if (!(await databaseIsEmpty())) return 0;
  const started = performance.now();
  for (const role of ["orders", "summary", "base64"] as const) {
    const { description, ...floor } = DEMO_FLOORS[role];
    await updatePolicy(DEMO_CLASSES[role], {
      ...floor,
      required_fields: [...(floor.required_fields ?? [])],
      description,
    });
  }
  await updatePolicy(SEARCH_CLASS, { ...SEARCH_FLOOR, required_fields: [...(SEARCH_FLOOR.required_fields ?? [])] });

  const timeline = new Timeline();
  const clients: Floorline[] = [];
  const refused: string[] = [];
  const onError = (error: FloorlineError, items: Item[]) => {
    for (const item of items) refused.push(`${String(item.body.pass_id ?? item.kind)}: ${error.message}`);
  };
  const env: DemoEnv = {
    classes: DEMO_CLASSES,
    id: (name) => `demo-${name}`,
    startChain: (minutesAgo) => timeline.start(Date.now() - minutesAgo * MINUTE, 4 * MINUTE),
    client: (options = {}) => {
      const client = new Floorline({
        transport: inProcessTransport,
        clock: timeline.clock,
        flushOnExit: false,
        // Everything queued until the clients close, then sent in as few batches as the
        // order of passes and boundaries allows: each ingest costs a transaction, and
        // start-up waits for the seed.
        maxBatchSize: 5_000,
        scheduledDelayMs: 600_000,
        // The ingest is in this process and always answers: a client that gave up after the
        // default 5 s without an answer left a chain out of the demo when a busy machine took
        // longer (the measurement threads' first start, on a CI at load 19).
        exitTimeoutMs: 300_000,
        onError,
        ...options,
      });
      clients.push(client);
      return client;
    },
  };
  const lines = await runDemoChains(env);
  runDemoLineage(env);
  // Two to three weeks back, outside the overview's default week, so the chains above keep its figures.
  await runSearchAgents(env.client(), (index) =>
    timeline.start(Date.now() - 20 * DAY + index * 9 * 60 * MINUTE, 5 * MINUTE),
  );
  for (const client of clients) await client.close();
  for (const line of lines) logger.debug(`demo ${line.chain}: ${line.what}`);
  // One refusal is part of the story (demo-broken-receipts' pass 3); anything else is a demo gone wrong.
  if (refused.length !== 1) logger.warn({ refused }, "the demo's agents had receipts refused");

  await storeTrace({
    trace_id: "demo-trace-auth",
    chain_id: "demo-healthy-orders",
    keep_nodes: true,
    nodes: [
      {
        node_id: "n1",
        node_type: "EXPLORATORY_CHATTER",
        content: "Maybe the orders API takes an API key in the query string?",
        verification_receipt: null,
      },
      {
        node_id: "n2",
        node_type: "FALSIFIED_PATH",
        content: "API key in query string",
        verification_receipt: "HTTP 401 from GET /orders?key=...",
      },
      {
        node_id: "n3",
        node_type: "FALSIFIED_PATH",
        content: "Basic auth with the service account",
        verification_receipt: null,
      },
      {
        node_id: "n4",
        node_type: "VERIFIED_CONCLUSION",
        content: "The orders API requires Bearer auth",
        verification_receipt: "HTTP 200 from GET /orders with Authorization: Bearer",
      },
      {
        node_id: "n5",
        node_type: "VERIFIED_CONCLUSION",
        content: "/var/cache/orders is read-only",
        verification_receipt: "EROFS on open(O_WRONLY), exit 1",
      },
    ],
    residual_digest: null,
  });
  await seedDemoTraces();
  await seedDemoOriginals(lines.flatMap((line) => (line.restored ? [line.restored] : [])));
  logger.info(`demo data seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return lines.length;
}
