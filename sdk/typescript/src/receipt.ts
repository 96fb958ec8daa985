// A pass receipt from the content itself: hashes, UTF-8 size, the measurement's parseability
// and schema validity in the class's format, and the guard's manifest on them.
import type { Canary, CanaryCheck } from "../../../lib/canaries/canaries";
import type { ContentFormat, DecodedFormat } from "../../../lib/content-checks/formats";
import {
  type CompressionManifest,
  type CompressionPass,
  type CompressionPolicy,
  evaluatePass,
} from "../../../lib/guard/guard";
import { sha256Hex } from "../../../lib/guard/hash";

export interface Policy extends CompressionPolicy {
  content_class?: string;
  /** 0 for the server's built-in default; null for a policy given in code. */
  version?: number | null;
  required_fields?: readonly string[];
  format?: ContentFormat;
  decoded_format?: DecodedFormat | null;
}

/** What goes to `POST /api/v1/passes`, in the wire's names. */
export interface PassReceipt extends CompressionPass {
  chain_id: string;
  /** Absent when the pass was recorded without its input. */
  input_content_hash?: string;
  content_class: string;
  created_at: string;
  verdict: CompressionManifest["verdict"];
  manifest_digest: string;
  metadata?: Record<string, unknown>;
  content?: string;
  /** Pass 1's input (the chain's source), sent with its content so the server can measure. */
  input_content?: string;
  /** Canaries planted since the chain's previous receipt. */
  canaries?: Canary[];
  /** Which of the chain's canaries survive in this pass's output (or in text checked in its place). */
  canary_check?: { surviving: string[]; checked_text_bytes: number };
  /** The tools the agent's context offered when this pass's output was used (docs/markers.md). */
  context_tools?: string[];
}

export interface ReceiptInput {
  chainId: string;
  contentClass: string;
  passId: string;
  passNumber: number;
  inputHash: string | undefined;
  output: string;
  /** An output that cannot be read: its hash ("" when unknown) and size stand in for the content's. */
  opaque?: { hash: string; sizeBytes: number };
  density: number;
  parseable: boolean;
  schemaValid: boolean;
  policy: Policy;
  metadata?: Record<string, unknown>;
  sendContent?: boolean;
  /** The chain's source, sent on its first pass when the content is. */
  source?: string;
  canaries?: Canary[];
  canaryCheck?: CanaryCheck;
  contextTools?: readonly string[];
  createdAt: Date;
}

export function buildReceipt(r: ReceiptInput): { receipt: PassReceipt; manifest: CompressionManifest } {
  // One object in its final shape (the guard reads its pass fields), filled in once judged:
  // recordPass's own cost beside the hashing is mostly allocation.
  const receipt: PassReceipt = {
    chain_id: r.chainId,
    pass_id: r.passId,
    pass_number: r.passNumber,
    current_content_hash: r.opaque ? r.opaque.hash : sha256Hex(r.output),
    current_size_bytes: r.opaque ? r.opaque.sizeBytes : Buffer.byteLength(r.output, "utf8"),
    is_parseable: r.parseable,
    schema_valid: r.schemaValid,
    semantic_density_score: r.density,
    ...(r.inputHash === undefined ? {} : { input_content_hash: r.inputHash }),
    content_class: r.contentClass,
    // Fixed now, so that a resend is the same body and the server answers it as a repeat.
    created_at: r.createdAt.toISOString(),
    verdict: "SAFE_TO_COMPRESS",
    manifest_digest: "",
  };
  const manifest = evaluatePass(receipt, r.policy);
  receipt.verdict = manifest.verdict;
  receipt.manifest_digest = manifest.manifest_digest;
  if (r.metadata) receipt.metadata = r.metadata;
  if (r.canaries) receipt.canaries = r.canaries.map((c) => ({ id: c.id, kind: c.kind, text: c.text }));
  if (r.canaryCheck)
    receipt.canary_check = {
      surviving: [...r.canaryCheck.surviving],
      checked_text_bytes: r.canaryCheck.checked_text_bytes,
    };
  if (r.contextTools) receipt.context_tools = [...r.contextTools];
  if (r.sendContent) {
    receipt.content = r.output;
    // The server measures a chain's passes against the source its first pass states.
    if (r.passNumber <= 1 && r.source !== undefined) receipt.input_content = r.source;
  }
  return { receipt, manifest };
}
