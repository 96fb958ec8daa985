// Chains as a fleet of agents leaves them after months of work: 10 passes each, started at
// random moments over the last 120 days (so every overview range has something in it),
// several content classes with their own floors, a share of collapses, client mismatches,
// broken hash links, boundaries, cached originals and distilled traces. Chain i is the same
// bytes whichever batch it is sent in, so the small set is a prefix of the large one.
import { createHash } from "node:crypto";
import { evaluatePass, type CompressionPolicy } from "@/lib/guard/guard";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import { seededRandom } from "../../support/random";
import type { WireReceipt } from "./receipts";

export const PASSES_PER_CHAIN = 10;
export const SPREAD_DAYS = 120;

/** The classes with a floor of their own; one chain in five has the built-in default. */
export const SCALE_POLICIES: Record<string, CompressionPolicy> = {
  summary: { min_size_bytes: 256, min_semantic_density: 0.45, max_pass_number: 12 },
  "api-json": { min_size_bytes: 512, min_semantic_density: 0.3, max_pass_number: 12 },
  "base64-blob": { min_size_bytes: 1_024, min_semantic_density: 0.2, max_pass_number: 20 },
  "tool-output": { min_size_bytes: 128, min_semantic_density: 0.35, max_pass_number: 9 },
};
const CLASSES = [...Object.keys(SCALE_POLICIES), "default"];
const classOf = (i: number): string => CLASSES[i % CLASSES.length] ?? "default";

export const policyOf = (contentClass: string): CompressionPolicy =>
  SCALE_POLICIES[contentClass] ?? CONSERVATIVE_DEFAULT_POLICY;

const hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** `scale-000421`: fixed width, so an id search means the same at every size. */
export const chainIdOf = (i: number) => `scale-${String(i).padStart(6, "0")}`;

export interface ScaleChain {
  receipts: WireReceipt[];
  /** A boundary the agent reported after the collapse, if it did. */
  boundary: { chain_id: string; pass_number: number; strategy: "halt"; reason: string } | null;
}

export function scaleChain(i: number, now: number): ScaleChain {
  const random = seededRandom(0x5ca1e + i);
  const chainId = chainIdOf(i);
  const contentClass = classOf(i);
  const policy = policyOf(contentClass);
  // Never in the last hour, so a chain seeded late still counts in the same ranges as one seeded early.
  const start = now - 3_600_000 - Math.floor(random() * SPREAD_DAYS * 86_400_000);
  let size = 40_000 + Math.floor(random() * 200_000);
  let density = 0.7 + random() * 0.3;
  let lastHash = hex(`${chainId}:origin`);
  const receipts: WireReceipt[] = [];
  for (let n = 1; n <= PASSES_PER_CHAIN; n++) {
    size = Math.max(64, Math.floor(size * (0.4 + random() * 0.55)));
    density = Math.min(1, density * (0.82 + random() * 0.2));
    const currentHash = hex(`${chainId}:${n}`);
    const receipt: WireReceipt = {
      chain_id: chainId,
      pass_id: `${chainId}.p${n}`,
      pass_number: n,
      input_content_hash: random() < 0.01 ? hex(`${chainId}:${n}:stray`) : lastHash,
      current_content_hash: currentHash,
      current_size_bytes: size,
      is_parseable: random() > 0.005,
      schema_valid: random() > 0.01,
      semantic_density_score: Math.round(density * 1e6) / 1e6,
      content_class: contentClass,
      created_at: new Date(start + n * 45_000).toISOString(),
    };
    if (random() < 0.3) receipt.metadata = { agent: `agent-${i % 37}`, tokens_in: Math.floor(random() * 8000) };
    if (random() < 0.3) {
      const manifest = evaluatePass(receipt, policy);
      receipt.verdict = random() < 0.03 ? "SAFE_TO_COMPRESS" : manifest.verdict;
      receipt.manifest_digest = manifest.manifest_digest;
    }
    lastHash = currentHash;
    receipts.push(receipt);
  }
  const boundary =
    random() < 0.05
      ? { chain_id: chainId, pass_number: PASSES_PER_CHAIN, strategy: "halt" as const, reason: "agent stopped here" }
      : null;
  return { receipts, boundary };
}

/** One cached original per hundred chains, tied to the chain's last pass. */
export function scaleOriginal(i: number) {
  const chainId = chainIdOf(i);
  const items = Array.from({ length: 40 }, (_, k) => ({ row: k, chain: chainId, value: (i * 7919 + k) % 1000 }));
  return {
    original: JSON.stringify(items),
    compressed: JSON.stringify(items.slice(0, 5)),
    content_type: "application/json",
    chain_id: chainId,
    pass_id: `${chainId}.p${PASSES_PER_CHAIN}`,
    tool_name: i % 2 ? "search" : "read_file",
    original_items: items.length,
    compressed_items: 5,
  };
}

/** One distilled trace per hundred chains. */
export function scaleTrace(i: number) {
  const chainId = chainIdOf(i);
  return {
    trace_id: `trace-${chainId}`,
    chain_id: chainId,
    nodes: [
      { node_id: "n1", node_type: "EXPLORATORY_CHATTER", content: `looking at ${chainId}`, verification_receipt: null },
      {
        node_id: "n2",
        node_type: "FALSIFIED_PATH",
        content: `cache miss theory ${i % 13}`,
        verification_receipt: null,
      },
      {
        node_id: "n3",
        node_type: "VERIFIED_CONCLUSION",
        content: `the floor for ${chainId} holds at pass ${i % 9}`,
        verification_receipt: `test run ${i}`,
      },
    ],
  };
}
