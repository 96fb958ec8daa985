// Demo data that teaches: one healthy chain, one chain per failure mode of the reference
// (schema truncation, semantic void, encoding degradation), one chain whose receipts do
// not hold together, and boundary receipts for halt, restore and accept-loss.
import { sql } from "drizzle-orm";
import { getDb } from "./index";
import { onlyRow, queryRows } from "./sql";
import { ingestBoundaries } from "@/db/ingest/boundaries";
import { ingestPasses } from "@/db/ingest/passes";
import { updatePolicy } from "./queries/policies";
import { storeTrace } from "./queries/traces";
import { seedDemoTraces } from "./demo-traces";
import { seedDemoOriginals } from "./demo-originals";
import { seedDemoRecommendation } from "./demo-recommend";
import { sha256Hex } from "@/lib/guard/hash";
import type { PassReceipt } from "@/lib/schemas/passes";
import type { BoundaryReceipt } from "@/lib/schemas/boundaries";

interface Step {
  size: number;
  density: number;
  parseable?: boolean;
  schemaValid?: boolean;
  /** Break the hash chain at this pass (the input is not the previous output). */
  foreignInput?: boolean;
  clientVerdict?: PassReceipt["verdict"];
}

function chain(
  chainId: string,
  contentClass: string,
  startedMinutesAgo: number,
  steps: Step[],
  skip: number[] = [],
): PassReceipt[] {
  const start = Date.now() - startedMinutesAgo * 60_000;
  let previous = sha256Hex(`${chainId}:source`);
  const receipts: PassReceipt[] = [];
  steps.forEach((step, i) => {
    const passNumber = i + 1;
    const current = sha256Hex(`${chainId}:pass:${passNumber}`);
    if (!skip.includes(passNumber)) {
      receipts.push({
        chain_id: chainId,
        pass_id: `${chainId}.p${passNumber}`,
        pass_number: passNumber,
        input_content_hash: step.foreignInput ? sha256Hex(`${chainId}:elsewhere`) : previous,
        current_content_hash: current,
        current_size_bytes: step.size,
        is_parseable: step.parseable ?? true,
        schema_valid: step.schemaValid ?? true,
        semantic_density_score: step.density,
        content_class: contentClass,
        created_at: new Date(start + i * 4 * 60_000).toISOString(),
        verdict: step.clientVerdict ?? null,
        metadata: { agent: "demo-agent", step: i + 1 },
      });
    }
    previous = current;
  });
  return receipts;
}

export async function seedDemoIfEmpty(): Promise<number> {
  const db = await getDb();
  const { n } = onlyRow(
    await queryRows<{ n: number | string }>(
      db,
      sql`select (select count(*) from passes) + (select count(*) from policies) as n`,
    ),
  );
  if (Number(n) > 0) return 0;

  await updatePolicy("api-json", {
    min_size_bytes: 2048,
    min_semantic_density: 0.55,
    max_pass_number: 6,
    required_fields: ["id", "status", "items.sku", "items.quantity"],
    format: "json",
    description: "Tool responses from the orders API: JSON that must keep its schema fields.",
  });
  await updatePolicy("summary", {
    min_size_bytes: 400,
    min_semantic_density: 0.45,
    max_pass_number: 8,
    required_fields: [],
    format: "text",
    description: "Recursive prose summaries: stop before they become 'the document discusses various topics'.",
  });
  await updatePolicy("base64-blob", {
    min_size_bytes: 1024,
    min_semantic_density: 0.3,
    max_pass_number: 5,
    required_fields: [],
    format: "base64",
    description: "Encoded attachments: each pass must still decode to the original format.",
  });

  const receipts: PassReceipt[] = [
    ...chain("demo-healthy-orders", "api-json", 180, [
      { size: 96_000, density: 0.94 },
      { size: 51_200, density: 0.9 },
      { size: 27_400, density: 0.84 },
      { size: 15_100, density: 0.79 },
      { size: 9_800, density: 0.72 },
    ]),
    ...chain("demo-schema-truncation", "api-json", 150, [
      { size: 88_000, density: 0.93 },
      { size: 41_000, density: 0.88 },
      { size: 19_500, density: 0.8 },
      { size: 8_900, density: 0.71 },
      { size: 3_900, density: 0.63, schemaValid: false, clientVerdict: "SAFE_TO_COMPRESS" },
      { size: 1_700, density: 0.5, schemaValid: false },
    ]),
    ...chain("demo-semantic-void", "summary", 120, [
      { size: 24_000, density: 0.91 },
      { size: 9_600, density: 0.78 },
      { size: 3_900, density: 0.61 },
      { size: 1_500, density: 0.38 },
      { size: 620, density: 0.14 },
    ]),
    ...chain("demo-encoding-degradation", "base64-blob", 90, [
      { size: 140_000, density: 0.88 },
      { size: 70_400, density: 0.83 },
      { size: 35_300, density: 0.74 },
      { size: 17_800, density: 0.52, parseable: false },
      { size: 9_000, density: 0.21, parseable: false },
    ]),
    ...chain(
      "demo-broken-receipts",
      "summary",
      45,
      [
        { size: 30_000, density: 0.9 },
        { size: 14_000, density: 0.82 },
        { size: 7_100, density: 0.75 },
        { size: 3_500, density: 0.66 },
        { size: 1_900, density: 0.58, foreignInput: true, clientVerdict: "NO_RECURSIVE_COMPRESSION" },
      ],
      [3],
    ),
  ];
  await ingestPasses(receipts);
  await ingestPasses(contentCheckedChain());

  const boundaries: BoundaryReceipt[] = [
    {
      chain_id: "demo-schema-truncation",
      pass_number: 5,
      strategy: "restore",
      reason: "Pass 5 dropped the required field items.sku; restored pass 4 output from the cache.",
      restore_pass_id: "demo-schema-truncation.p4",
    },
    {
      chain_id: "demo-semantic-void",
      pass_number: 4,
      strategy: "halt",
      reason: "Density fell to 0.38; the summary no longer names a single concrete fact. Stopped compressing.",
    },
    {
      chain_id: "demo-encoding-degradation",
      pass_number: 4,
      strategy: "accept_loss",
      reason: "Attachment is a decorative image; the operator accepted a lossy re-encode for this run.",
      relaxed_policy: { min_size_bytes: 4096, min_semantic_density: 0.2, max_pass_number: 6 },
    },
  ];
  await ingestBoundaries(boundaries);

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
  await seedDemoOriginals();
  await seedDemoRecommendation();
  return new Set(receipts.map((r) => r.chain_id)).size;
}

/**
 * A chain whose agent sends its output with the receipt: at pass 3 the client claims "schema
 * valid" (and its own guard says SAFE), but the server reads the content and finds an item
 * without `quantity`, a required field of the api-json policy: a checked mismatch.
 */
function contentCheckedChain(): PassReceipt[] {
  const chainId = "demo-content-check";
  const items = Array.from({ length: 40 }, (_, i) => ({
    sku: `SKU-${1000 + i}`,
    ...(i === 17 ? {} : { quantity: (i % 5) + 1 }),
    title: `Replacement part ${i + 1}`,
  }));
  const content = JSON.stringify({ id: "order-5521", status: "shipped", items }, null, 1);
  const start = Date.now() - 30 * 60_000;
  const sizes = [64_000, 21_000];
  let previous = sha256Hex(`${chainId}:source`);
  const receipts: PassReceipt[] = sizes.map((size, i) => {
    const current = sha256Hex(`${chainId}:pass:${i + 1}`);
    const receipt: PassReceipt = {
      chain_id: chainId,
      pass_id: `${chainId}.p${i + 1}`,
      pass_number: i + 1,
      input_content_hash: previous,
      current_content_hash: current,
      current_size_bytes: size,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9 - i * 0.05,
      content_class: "api-json",
      created_at: new Date(start + i * 4 * 60_000).toISOString(),
      metadata: { agent: "demo-agent", step: i + 1 },
    };
    previous = current;
    return receipt;
  });
  receipts.push({
    chain_id: chainId,
    pass_id: `${chainId}.p3`,
    pass_number: 3,
    input_content_hash: previous,
    current_content_hash: sha256Hex(content),
    current_size_bytes: Buffer.byteLength(content, "utf8"),
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.78,
    content_class: "api-json",
    created_at: new Date(start + 8 * 60_000).toISOString(),
    verdict: "SAFE_TO_COMPRESS",
    metadata: { agent: "demo-agent", step: 3 },
    content,
  });
  return receipts;
}
