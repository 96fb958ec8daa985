// `npm run demo:agent -- --url http://127.0.0.1:3000 [--key fl_...] [--prefix name]`: a real
// agent, really compressing. It runs the demo's chains (demo/scenarios.ts, the same code that
// makes the data `npm start` seeds) through the TypeScript SDK against any server, in classes
// of its own (agent-*) so that it never changes the floors of a server's own classes.
import { parseArgs } from "node:util";
import { type DeliveryCounters, Floorline, type FloorlineOptions, type Policy } from "../sdk/typescript/src/index";
import { DEMO_FLOORS, type DemoEnv, type DemoLine, type DemoRole, runDemoChains } from "./scenarios";

export const AGENT_CLASSES: Record<DemoRole, string> = {
  orders: "agent-api-json",
  summary: "agent-summary",
  base64: "agent-base64",
  logs: "agent-logs",
};

/** The floors the agent saves for its classes before it starts. */
export const DEMO_POLICIES: Record<string, Policy & { description: string }> = Object.fromEntries(
  (Object.keys(AGENT_CLASSES) as DemoRole[]).map((role) => [AGENT_CLASSES[role], DEMO_FLOORS[role]]),
);

/**
 * Runs the demo's chains with ids `${prefix}-<name>` on clients made with `options`, closes
 * the clients (delivering what they queued) and returns a line per chain.
 */
export async function runDemoAgent(
  prefix: string,
  options: FloorlineOptions,
): Promise<{ lines: DemoLine[]; stats: DeliveryCounters }> {
  const clients: Floorline[] = [];
  const env: DemoEnv = {
    classes: AGENT_CLASSES,
    id: (name) => `${prefix}-${name}`,
    // A live run dates its receipts when they are made.
    startChain: () => undefined,
    client: (extra = {}) => {
      const client = new Floorline({ ...options, ...extra });
      clients.push(client);
      return client;
    },
  };
  let lines: DemoLine[];
  try {
    lines = await runDemoChains(env, { logs: true });
  } finally {
    for (const client of clients) await client.close();
  }
  return { lines, stats: totals(clients) };
}

function totals(clients: Floorline[]): DeliveryCounters {
  const sum: DeliveryCounters = { sent: 0, retried: 0, dropped: 0, failed: 0, queued: 0 };
  for (const client of clients)
    for (const key of Object.keys(sum) as (keyof DeliveryCounters)[]) sum[key] += client.stats[key];
  return sum;
}

async function putPolicies(url: string, key: string | undefined): Promise<void> {
  for (const [contentClass, policy] of Object.entries(DEMO_POLICIES)) {
    const response = await fetch(`${url.replace(/\/+$/, "")}/api/v1/policies/${contentClass}`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(policy),
    }).catch((error: Error) => error);
    if (response instanceof Error || !response.ok) {
      const why = response instanceof Error ? response.message : `HTTP ${response.status}`;
      console.warn(`policy ${contentClass} not saved (${why}); the server's policy in force is used`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: process.env.FLOORLINE_URL ?? "http://127.0.0.1:3000" },
      key: { type: "string", default: process.env.FLOORLINE_API_KEY },
      prefix: { type: "string", default: `agent-${new Date().toISOString().slice(0, 16).replace(/[-:T]/g, "")}` },
    },
  });
  const url = values.url as string;
  await putPolicies(url, values.key);
  const prefix = values.prefix as string;
  const { lines, stats } = await runDemoAgent(prefix, {
    url,
    apiKey: values.key,
    onError: (error, items) => console.error(`${items.length} items refused: ${error.code}: ${error.message}`),
  });
  for (const line of lines) console.log(`${line.chain}: ${line.what}`);
  console.log(`sent ${stats.sent}, retried ${stats.retried}, failed ${stats.failed}, dropped ${stats.dropped}`);
  console.log(`the chains: ${url.replace(/\/+$/, "")}/chains?q=${encodeURIComponent(prefix)}`);
}
