// Synthetic but plausible receipts: chains whose passes shrink the content step by step,
// mostly consistent hashes, a mix of verdicts, optional metadata and client verdicts.
// Seeded, so two runs send the same bytes.
import { createHash } from "node:crypto";
import { evaluatePass, type CompressionPolicy, type Verdict } from "@/lib/guard/guard";
import { judgeReceipt } from "@/lib/guard/judge";
import { bodyDigest } from "@/lib/guard/canonical";
import type { NewPass } from "@/db/ingest/passes";
import { seededRandom } from "../../support/random";

export { seededRandom };

export interface WireReceipt {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  input_content_hash?: string;
  current_content_hash: string;
  current_size_bytes: number;
  is_parseable: boolean;
  schema_valid: boolean;
  semantic_density_score: number;
  content_class: string;
  created_at: string;
  metadata?: Record<string, unknown>;
  verdict?: Verdict;
  manifest_digest?: string;
}

/** A policy the bench installs before it sends anything, with the version the server will give it. */
export interface BenchPolicy extends CompressionPolicy {
  content_class: string;
  version: number;
}

const hex = (text: string) => createHash("sha256").update(text).digest("hex");

interface ChainState {
  chainId: string;
  contentClass: string;
  nextPass: number;
  lastHash: string;
  size: number;
}

/**
 * Yields batches that continue the same chains: batch k holds the next `passesPerBatch`
 * passes of every chain, the way agents report as they go.
 */
export function* chainBatches(options: {
  prefix: string;
  chains: number;
  passesPerBatch: number;
  batches: number;
  contentClassOf: (chainIndex: number) => string;
  policyOf: (contentClass: string) => CompressionPolicy;
  seed: number;
}): Generator<WireReceipt[]> {
  const random = seededRandom(options.seed);
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const states: ChainState[] = Array.from({ length: options.chains }, (_, i) => ({
    chainId: `${options.prefix}-${i}`,
    contentClass: options.contentClassOf(i),
    nextPass: 1,
    lastHash: hex(`${options.prefix}-${i}:origin`),
    size: 50_000 + Math.floor(random() * 200_000),
  }));
  let clock = start;
  for (let b = 0; b < options.batches; b++) {
    const batch: WireReceipt[] = [];
    for (let p = 0; p < options.passesPerBatch; p++) {
      for (const s of states) {
        const passNumber = s.nextPass++;
        const currentHash = hex(`${s.chainId}:${passNumber}`);
        s.size = Math.max(64, Math.floor(s.size * (0.6 + random() * 0.39)));
        clock += 7;
        const receipt: WireReceipt = {
          chain_id: s.chainId,
          pass_id: `${s.chainId}/p-${passNumber}`,
          pass_number: passNumber,
          // One in a hundred breaks the hash chain, so integrity checks have something to find.
          input_content_hash: random() < 0.01 ? hex(`${s.chainId}:${passNumber}:stray`) : s.lastHash,
          current_content_hash: currentHash,
          current_size_bytes: s.size,
          is_parseable: random() > 0.01,
          schema_valid: random() > 0.01,
          semantic_density_score: Math.round(random() * 1e6) / 1e6,
          content_class: s.contentClass,
          created_at: new Date(clock).toISOString(),
        };
        if (random() < 0.5) {
          receipt.metadata = {
            agent: "bench-agent",
            model: "model-x",
            tokens_in: Math.floor(random() * 8000),
            tokens_out: Math.floor(random() * 2000),
          };
        }
        if (random() < 0.5) {
          const manifest = evaluatePass(receipt, options.policyOf(s.contentClass));
          receipt.verdict = random() < 0.02 ? "SAFE_TO_COMPRESS" : manifest.verdict;
          receipt.manifest_digest = manifest.manifest_digest;
        }
        s.lastHash = currentHash;
        batch.push(receipt);
      }
    }
    yield batch;
  }
}

/** The `passes` row the app stores for a receipt, computed up front for the raw baseline. */
export type StoredPassRow = Omit<NewPass, "created_at"> & { created_at: Date };

export const STORED_PASS_COLUMNS = [
  "chain_id",
  "pass_id",
  "pass_number",
  "input_content_hash",
  "current_content_hash",
  "current_size_bytes",
  "is_parseable",
  "schema_valid",
  "semantic_density_score",
  "content_class",
  "metadata",
  "client_verdict",
  "client_manifest_digest",
  "verdict",
  "directive",
  "manifest_digest",
  "policy_version",
  "client_mismatch",
  "effective_verdict",
  "body_digest",
  "created_at",
] as const satisfies readonly (keyof StoredPassRow)[];

export function toStoredRow(r: WireReceipt, policy: BenchPolicy): StoredPassRow {
  return { ...judgeReceipt(r, policy), body_digest: bodyDigest(r), created_at: new Date(r.created_at) };
}
