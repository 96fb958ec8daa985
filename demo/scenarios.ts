// The demo's chains: each one a real compressor run through the TypeScript SDK, so every size,
// hash, density and verdict on its receipts comes from content that was compressed and
// measured, and each failure mode appears because the content collapsed. The same code makes
// the data `npm start` seeds (demo/seed.ts, in the server's process) and the live chains
// `npm run demo:agent` sends to any server (demo/agent.ts).
import { crushJson, dropEmpty } from "../lib/compressors/json-crusher";
import { degradeBase64, encodeBase64 } from "../lib/compressors/degrade";
import { crushLogs } from "../lib/compressors/logs";
import { summarise } from "../lib/compressors/summarise";
import type { Floorline, FloorlineOptions, Policy } from "../sdk/typescript/src/index";
import { INCIDENT_REPORT } from "./incident-report";
import { opaqueCanaries } from "./canaries";
import { restoredFacts } from "./facts";
import { nestedMarker } from "./nested-marker";

export type DemoRole = "orders" | "summary" | "base64" | "logs";

/** The floors the demo's classes hold (the seed's api-json, summary and base64-blob; demo:agent's agent-*). */
export const DEMO_FLOORS: Record<DemoRole, Policy & { description: string }> = {
  orders: {
    min_size_bytes: 2048,
    min_semantic_density: 0.5,
    max_pass_number: 6,
    required_fields: ["id", "status", "items.sku", "items.quantity"],
    format: "json",
    description: "Tool responses from the orders API: JSON that must keep its schema fields.",
  },
  summary: {
    min_size_bytes: 400,
    min_semantic_density: 0.45,
    max_pass_number: 8,
    required_fields: [],
    format: "text",
    description: "Recursive prose summaries: stop before they become 'the document discusses various topics'.",
  },
  base64: {
    min_size_bytes: 1024,
    min_semantic_density: 0.3,
    max_pass_number: 5,
    required_fields: [],
    format: "base64",
    // The attachment is text: the server's content check decodes it as such, as the SDK's measurement does.
    decoded_format: "text",
    description: "Encoded attachments: each pass must still decode to the original format.",
  },
  logs: {
    min_size_bytes: 200,
    min_semantic_density: 0.3,
    max_pass_number: 6,
    required_fields: [],
    format: "text",
    description: "Service logs crushed level by level.",
  },
};

export interface DemoEnv {
  /** A client of the agent's; each worker or restarted process holds its own. */
  client(options?: Partial<FloorlineOptions>): Floorline;
  /** The chain id for a demo chain's name. */
  id(name: string): string;
  classes: Record<DemoRole, string>;
  /** Dates the next chain's receipts from `minutesAgo` on (the seed backdates; a live run ignores it). */
  startChain(minutesAgo: number): void;
}

/** What happened to one chain, in a line. */
export interface DemoLine {
  chain: string;
  what: string;
  /**
   * The content a restore boundary rolls back to (the restored pass's output) and what the
   * breaching pass made of it: the seed keeps it as the cached original the restore links to.
   */
  restored?: RestoredContent;
}

export interface RestoredContent {
  chain_id: string;
  pass_id: string;
  original: string;
  compressed: string;
}

const ORDER_FIELDS_KEPT = ["id", "status", "items", "sku", "quantity", "price_eur", "_ccr"];

/** An orders-API answer: one order with `lines` items, every field the API returns. */
export function ordersResponse(lines = 96): string {
  const items = Array.from({ length: lines }, (_, i) => ({
    sku: `SKU-${4100 + i}`,
    quantity: (i % 4) + 1,
    title: `Replacement part ${i + 1} for dishwasher model DW-${300 + (i % 7)}`,
    warehouse: `wh-${["lisbon", "leeds", "lodz"][i % 3]}-${(i % 5) + 1}`,
    notes: `Picked ${2 + (i % 9)} days ago by ${["Ana", "Ben", "Chen", "Dara"][i % 4]}; shelf ${i * 3 + 11}, bin ${i % 12}.`,
    price_eur: (12.5 + i * 1.25).toFixed(2),
    supplier: ["Bosch", "Miele", "Siemens", "AEG"][i % 4],
  }));
  return JSON.stringify({
    id: "order-5521",
    status: "shipped",
    customer: "Zoë Łukasiewicz",
    carrier: "DHL",
    tracking: "JD014600003828",
    created: "2026-11-14T09:12:00Z",
    items,
  });
}

/** An order whose line 17 was cancelled: its quantity is 0, a value the consumer must still see. */
export function amendedOrder(lines = 60): string {
  const items = Array.from({ length: lines }, (_, i) => ({
    sku: `SKU-${1000 + i}`,
    quantity: i === 17 ? 0 : (i % 5) + 1,
    title: `Replacement part ${i + 1}`,
    discount_eur: i % 6 === 0 ? 2.5 : 0,
    warehouse: `wh-${["lisbon", "leeds", "lodz"][i % 3]}`,
    notes: i === 17 ? "Line cancelled by the customer on 2026-11-30." : `Packed in box ${Math.floor(i / 8) + 1}.`,
  }));
  return JSON.stringify({ id: "order-5521", status: "amended", items });
}

/** A customer list with names as people write them: many characters take several bytes in UTF-8. */
export function customerList(rows = 40): string {
  const customers = [
    "Zoë Łukasiewicz, Łódź",
    "Tomás Ferreira, São Paulo",
    "林美, 東京",
    "Jürgen Groß, Köln",
    "Ana Ñúñez, Málaga",
    "Søren Ødegård, Århus",
    "Çağla Şahin, İzmir",
    "Dvořák Jiří, Plzeň",
  ];
  return Array.from(
    { length: rows },
    (_, i) => `customer ${1000 + i}: ${customers[i % customers.length]}, order ${5500 + i * 7}`,
  ).join("\n");
}

export function serviceLogs(count = 60): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const t = `2026-11-14T09:${String(5 + ((i >> 2) % 50)).padStart(2, "0")}:${String((i * 7) % 60).padStart(2, "0")}Z`;
    const level = i % 10 === 9 ? "ERROR" : i % 5 === 4 ? "WARN" : i % 2 ? "DEBUG" : "INFO";
    const text =
      level === "ERROR"
        ? `checkout ${9000 + i} failed: HTTP 503 from orders-api (pool 200/200)`
        : level === "WARN"
          ? `replica db-replica-3 lag ${40 + (i % 20)}s`
          : level === "DEBUG"
            ? `cache miss for sku SKU-${4100 + (i % 24)}`
            : `request ${i} served in ${180 + i * 3} ms`;
    lines.push(`${t} ${level} ${text}`);
  }
  return lines.join("\n");
}

// ---- the chains ---------------------------------------------------------------------------

/** Healthy: a crusher that knows the schema drops only what the consumer does not need. */
async function healthyOrders(env: DemoEnv, fl: Floorline): Promise<DemoLine> {
  env.startChain(180);
  const chain = fl.chain(env.id("healthy-orders"), { contentClass: env.classes.orders });
  const outcome = await chain.compressUntilFloor(
    ordersResponse(),
    (s) => crushJson(s, { protect: ORDER_FIELDS_KEPT, keepItems: 1_000 }),
    { maxPasses: 5 },
  );
  return { chain: chain.id, what: `${outcome.passes.length} passes, ${outcome.strategy ?? "no breach"}` };
}

/**
 * Schema truncation: the same crusher protecting only the list drops `sku` at pass 5; the
 * guard says FLOOR_BREACH and the SDK restores pass 4. A second worker then picks up the
 * step's last output (pass 5's, not the restored one) and crushes it once more: the restore is
 * not honoured. It records at once, before its new client has read the class's floor, so its
 * guard judges pass 6 by the conservative default and disagrees with the server's.
 */
async function schemaTruncation(env: DemoEnv, fl: Floorline): Promise<DemoLine> {
  env.startChain(150);
  const crush = (s: string) => crushJson(s, { protect: ["items", "price_eur", "_ccr"], keepItems: 1_000 });
  const chain = fl.chain(env.id("schema-truncation"), { contentClass: env.classes.orders });
  const outcome = await chain.compressUntilFloor(ordersResponse(), crush);
  const last = outcome.passes.at(-1)?.output ?? ordersResponse();
  const worker = env
    .client()
    .chain(chain.id, { contentClass: env.classes.orders, resumeAfter: chain.passes, source: ordersResponse() });
  const ignored = worker.recordPass(last, crush(last));
  const kept = outcome.passes.find((p) => p.receipt.pass_id === outcome.boundary?.restore_pass_id);
  const breach = outcome.passes.find((p) => p.receipt.pass_number === outcome.boundary?.pass_number);
  return {
    chain: chain.id,
    restored:
      kept && breach
        ? { chain_id: chain.id, pass_id: kept.receipt.pass_id, original: kept.output, compressed: breach.output }
        : undefined,
    what: `${outcome.strategy} at pass ${outcome.boundary?.pass_number}: ${outcome.reason}; then pass ${ignored.receipt.pass_number} from pass ${chain.passes}'s output (${ignored.directive})`,
  };
}

/** Semantic void: summaries of summaries until the density falls through the floor; halt, then one more anyway. */
async function semanticVoid(env: DemoEnv, fl: Floorline): Promise<DemoLine> {
  env.startChain(120);
  const chain = fl.chain(env.id("semantic-void"), { contentClass: env.classes.summary });
  const outcome = await chain.compressUntilFloor(INCIDENT_REPORT, (s) => summarise(s, 0.75), {
    onBreach: () => "halt",
  });
  // The agent's next step summarises what it last made, HALT or not.
  const last = outcome.passes.at(-1)?.output ?? INCIDENT_REPORT;
  const after = chain.recordPass(last, summarise(last, 0.75));
  return {
    chain: chain.id,
    what: `${outcome.strategy} at pass ${outcome.boundary?.pass_number}: ${outcome.reason}; pass ${after.receipt.pass_number} came anyway`,
  };
}

/** Encoding degradation: valid base64 that stops decoding to text; the loss is accepted and one more pass made. */
async function encodingDegradation(env: DemoEnv, fl: Floorline): Promise<DemoLine> {
  env.startChain(90);
  const chain = fl.chain(env.id("encoding-degradation"), { contentClass: env.classes.base64 });
  const outcome = await chain.compressUntilFloor(
    customerList(),
    (s, passNumber) => (passNumber === 1 ? encodeBase64(s) : degradeBase64(s, 0.8)),
    { onBreach: () => "accept_loss" },
  );
  const after = chain.recordPass(outcome.content, degradeBase64(outcome.content, 0.8));
  return {
    chain: chain.id,
    what: `${outcome.strategy} at pass ${outcome.boundary?.pass_number}: ${outcome.reason}; pass ${after.receipt.pass_number}: ${after.verdict}`,
  };
}

/**
 * Receipts that do not hold together. Pass 3 carries the service logs the agent read as
 * metadata, over the 16 KiB a receipt's metadata may hold: the server refuses that receipt
 * (onError gets it) and the chain has no pass 3. Then the agent restarts and resumes the chain
 * at pass 5 from the context it rebuilt from its transcript, which is not pass 4's output; it
 * records before its new client has read the class's floor, and the default one's "at most 4
 * passes" disagrees with the server's verdict.
 */
async function brokenReceipts(env: DemoEnv, fl: Floorline): Promise<DemoLine> {
  env.startChain(45);
  const chain = fl.chain(env.id("broken-receipts"), { contentClass: env.classes.summary });
  await chain.ready();
  let text = INCIDENT_REPORT;
  for (let n = 1; n <= 4; n++) {
    const next = summarise(text, 0.85);
    chain.recordPass(text, next, n === 3 ? { metadata: { logs_read: serviceLogs(300) } } : {});
    text = next;
  }
  const rebuilt = `${text}\nUpdate at 11:02 UTC: the replica lag alert now fires at 5 seconds.`;
  const restarted = env
    .client()
    .chain(chain.id, { contentClass: env.classes.summary, resumeAfter: 4, source: INCIDENT_REPORT });
  const resumed = restarted.recordPass(rebuilt, summarise(rebuilt, 0.85));
  return {
    chain: chain.id,
    what: `pass 3 refused by the server (metadata too large); pass 5 resumed from a rebuilt context, its guard said ${resumed.verdict}`,
  };
}

/**
 * The content check: an agent that sends each pass's output. It records before its client
 * has read the class's floor, so its guard knows no required fields and claims "schema
 * valid" for pass 3, whose minifier dropped the cancelled line's `quantity: 0`; the server
 * reads the content and finds the required field missing.
 */
async function contentCheck(env: DemoEnv): Promise<DemoLine> {
  env.startChain(30);
  const chain = env.client({ sendContent: true }).chain(env.id("content-check"), { contentClass: env.classes.orders });
  const crush = (s: string) =>
    crushJson(s, { protect: ["id", "status", "items", "sku", "quantity"], keepItems: 1_000 });
  let text = amendedOrder();
  for (const step of [crush, crush, dropEmpty]) {
    const next = step(text);
    chain.recordPass(text, next);
    text = next;
  }
  return { chain: chain.id, what: "pass 3 claims schema valid; its content lacks items[17].quantity" };
}

/**
 * The agent claims high density on every pass; its receipts carry the content, so the server
 * measures what was kept and finds the summary fell through the floor: a semantic void that
 * only measurement catches.
 */
async function claimedDensity(env: DemoEnv): Promise<DemoLine> {
  env.startChain(20);
  const chain = env
    .client({ sendContent: true })
    .chain(env.id("claimed-density"), { contentClass: env.classes.summary });
  await chain.ready();
  let text = INCIDENT_REPORT;
  const measured: string[] = [];
  for (let n = 1; n <= 4; n++) {
    const next = summarise(text, 0.6);
    const result = chain.recordPass(text, next, { density: 0.92 });
    measured.push(result.measured.semantic_density_score.toFixed(2));
    text = result.output;
  }
  return { chain: chain.id, what: `claimed 0.92 on every pass; measured ${measured.join(", ")}` };
}

/** Logs crushed level by level (demo:agent only). */
async function logCrush(env: DemoEnv, fl: Floorline): Promise<DemoLine> {
  const chain = fl.chain(env.id("log-crush"), { contentClass: env.classes.logs });
  const outcome = await chain.compressUntilFloor(serviceLogs(), (s) => crushLogs(s));
  return {
    chain: chain.id,
    what: `${outcome.strategy ?? "no breach"} after ${outcome.passes.length} passes: ${outcome.reason}`,
  };
}

/** The demo's story chains, one after another (their receipts queued on the clients). */
export async function runDemoChains(env: DemoEnv, options: { logs?: boolean } = {}): Promise<DemoLine[]> {
  const fl = env.client();
  const lines = [
    await healthyOrders(env, fl),
    await schemaTruncation(env, fl),
    await semanticVoid(env, fl),
    await encodingDegradation(env, fl),
    await brokenReceipts(env, fl),
    await contentCheck(env),
    await claimedDensity(env),
    await opaqueCanaries(env),
    await restoredFacts(env),
    await nestedMarker(env),
  ];
  if (options.logs) lines.push(await logCrush(env, fl));
  return lines;
}
