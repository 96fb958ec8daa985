// `npm run demo:agent -- --url http://127.0.0.1:3000 [--key fl_...] [--prefix name]`: a real
// agent, really compressing. Each chain runs one of the repository's compressors through the
// TypeScript SDK, so every size, hash and density on its receipts comes from content that was
// actually compressed and measured, and each failure mode appears because the content collapsed.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { crushJson } from "../lib/compressors/json-crusher";
import { degradeBase64 } from "../lib/compressors/degrade";
import { crushLogs } from "../lib/compressors/logs";
import { summarise } from "../lib/compressors/summarise";
import { Floorline, type Policy } from "../sdk/typescript/src/index";

export const DEMO_POLICIES: Record<string, Policy & { description: string }> = {
  "agent-api-json": {
    min_size_bytes: 256,
    min_semantic_density: 0.2,
    max_pass_number: 8,
    required_fields: ["id", "status", "items.sku", "items.quantity"],
    format: "json",
    description: "Orders API responses crushed by the demo agent: JSON that must keep its schema fields.",
  },
  "agent-summary": {
    min_size_bytes: 200,
    min_semantic_density: 0.45,
    max_pass_number: 8,
    required_fields: [],
    format: "text",
    description: "The demo agent's recursive extractive summaries of an incident report.",
  },
  "agent-base64": {
    min_size_bytes: 256,
    // The measurement compares decoded content with the chain's source as sent (base64), so
    // its density says little here; parseability is this class's floor.
    min_semantic_density: 0,
    max_pass_number: 6,
    required_fields: [],
    format: "base64",
    // The attachment is text: the server's content check decodes it as such, as the SDK's measurement does.
    decoded_format: "text",
    description: "An attachment the demo agent re-encodes, losing bytes each pass.",
  },
  "agent-logs": {
    min_size_bytes: 200,
    min_semantic_density: 0.3,
    max_pass_number: 6,
    required_fields: [],
    format: "text",
    description: "Service logs the demo agent crushes level by level.",
  },
};

function orders(): string {
  const items = Array.from({ length: 32 }, (_, i) => ({
    sku: `SKU-${4100 + i}`,
    quantity: (i % 4) + 1,
    title: `Replacement part ${i + 1} for dishwasher model DW-${300 + (i % 7)}`,
    warehouse: `wh-${["lisbon", "leeds", "lodz"][i % 3]}-${(i % 5) + 1}`,
    notes: `Picked ${2 + (i % 9)} days ago by ${["Ana", "Ben", "Chen", "Dara"][i % 4]}; shelf ${i * 3 + 11}, bin ${i % 12}.`,
  }));
  return JSON.stringify({ id: "order-5521", status: "shipped", carrier: "DHL", tracking: "JD014600003828", items });
}

function serviceLogs(): string {
  const lines: string[] = [];
  for (let i = 0; i < 60; i++) {
    const t = `2026-11-14T09:${String(5 + (i >> 2)).padStart(2, "0")}:${String((i * 7) % 60).padStart(2, "0")}Z`;
    const level = i % 10 === 9 ? "ERROR" : i % 5 === 4 ? "WARN" : i % 2 ? "DEBUG" : "INFO";
    const text =
      level === "ERROR"
        ? `checkout ${9000 + i} failed: HTTP 503 from orders-api (pool 200/200)`
        : level === "WARN"
          ? `replica db-replica-3 lag ${40 + i}s`
          : level === "DEBUG"
            ? `cache miss for sku SKU-${4100 + (i % 24)}`
            : `request ${i} served in ${180 + i * 3} ms`;
    lines.push(`${t} ${level} ${text}`);
  }
  return lines.join("\n");
}

/** A customer list with names as people write them: many characters take several bytes. */
function attachment(): string {
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
  const lines = Array.from(
    { length: 4 * customers.length },
    (_, i) => `customer ${1000 + i}: ${customers[i % customers.length]}, order ${5500 + i * 7}`,
  );
  return Buffer.from(lines.join("\n"), "utf8").toString("base64");
}

export async function runDemoAgent(fl: Floorline, id: (name: string) => string): Promise<string[]> {
  const report = readFileSync(new URL("incident-report.txt", import.meta.url), "utf8");
  const lines: string[] = [];
  const show = (chainId: string, what: string) => lines.push(`${chainId}: ${what}`);

  // Healthy: the crusher knows the schema and never drops a required field (nor the CCR marker).
  const healthy = fl.chain(id("healthy-orders"), { contentClass: "agent-api-json" });
  const h = await healthy.compressUntilFloor(
    orders(),
    (s) => crushJson(s, { protect: ["id", "status", "items", "sku", "quantity", "_ccr"] }),
    {
      maxPasses: 4,
    },
  );
  show(healthy.id, `${h.passes.length} passes, ${h.strategy ?? "no breach"}`);

  // Schema truncation: the same crusher keeping only the list drops a required field; restore.
  const truncated = fl.chain(id("schema-truncation"), { contentClass: "agent-api-json" });
  const t = await truncated.compressUntilFloor(orders(), (s) => crushJson(s, { protect: ["items", "_ccr"] }));
  show(truncated.id, `${t.strategy} at pass ${t.boundary?.pass_number}: ${t.reason}`);

  // Semantic void: summaries of summaries until the density falls through the floor; halt.
  const void_ = fl.chain(id("semantic-void"), { contentClass: "agent-summary" });
  const v = await void_.compressUntilFloor(report, (s) => summarise(s), { onBreach: () => "halt" });
  show(void_.id, `${v.strategy} at pass ${v.boundary?.pass_number}: ${v.reason}`);

  // Encoding degradation: valid base64 that stops decoding to text; the loss is accepted.
  const encoded = fl.chain(id("encoding-degradation"), { contentClass: "agent-base64" });
  const e = await encoded.compressUntilFloor(attachment(), (s) => degradeBase64(s, 0.75), {
    onBreach: () => "accept_loss",
  });
  show(encoded.id, `${e.strategy} at pass ${e.boundary?.pass_number}: ${e.reason}`);

  // Logs: crushed level by level.
  const logs = fl.chain(id("log-crush"), { contentClass: "agent-logs" });
  const l = await logs.compressUntilFloor(serviceLogs(), (s) => crushLogs(s));
  show(logs.id, `${l.strategy ?? "no breach"} after ${l.passes.length} passes: ${l.reason}`);

  // The agent claims high density on every pass; what it kept says otherwise.
  const claims = fl.chain(id("claimed-density"), { contentClass: "agent-summary" });
  await claims.ready();
  let text = report;
  for (let n = 1; n <= 5; n++) {
    const next = summarise(text);
    const r = claims.recordPass(text, next, { density: 0.92 });
    show(
      claims.id,
      `pass ${n}: claimed 0.92, measured ${r.measured.semantic_density_score.toFixed(2)}, verdict ${r.verdict}`,
    );
    // What the SDK handed on (with its CCR marker) is the next pass's input, or the chain breaks.
    text = r.output;
  }
  return lines;
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
  const prefix = values.prefix as string;
  const url = values.url as string;
  await putPolicies(url, values.key);
  const fl = new Floorline({
    url,
    apiKey: values.key,
    policies: DEMO_POLICIES,
    cacheOriginals: true,
    sendContent: true,
    onError: (error, items) => console.error(`${items.length} items refused: ${error.code}: ${error.message}`),
  });
  for (const line of await runDemoAgent(fl, (name) => `${prefix}-${name}`)) console.log(line);
  await fl.close();
  console.log(
    `sent ${fl.stats.sent}, retried ${fl.stats.retried}, failed ${fl.stats.failed}, dropped ${fl.stats.dropped}`,
  );
}
