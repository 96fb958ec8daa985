// A pass receipt from the content itself: hashes, UTF-8 size, parseability and schema validity
// in the class's format (the server's own content check), and the guard's manifest on them.
import { checkContent, type ContentFormat, type DecodedFormat } from "../../../lib/content-checks/check-content";
import {
  type CompressionManifest,
  type CompressionPass,
  type CompressionPolicy,
  evaluatePass,
} from "../../../lib/guard/guard";

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
  input_content_hash: string;
  content_class: string;
  created_at: string;
  verdict: CompressionManifest["verdict"];
  manifest_digest: string;
  metadata?: Record<string, unknown>;
  content?: string;
}

export interface ReceiptInput {
  chainId: string;
  contentClass: string;
  passId: string;
  passNumber: number;
  inputHash: string;
  output: string;
  density: number;
  policy: Policy;
  metadata?: Record<string, unknown>;
  sendContent?: boolean;
}

export function buildReceipt(r: ReceiptInput): { receipt: PassReceipt; manifest: CompressionManifest } {
  // The check hashes and sizes the content itself; no claims are passed, so its findings
  // (not its comparisons) are what the receipt carries.
  const found = checkContent(
    r.output,
    { current_size_bytes: -1, current_content_hash: "" },
    { ...r.policy, format: r.policy.format ?? "any", required_fields: r.policy.required_fields ?? [] },
  );
  const pass = {
    pass_id: r.passId,
    pass_number: r.passNumber,
    current_content_hash: found.sha256,
    current_size_bytes: found.sizeBytes,
    is_parseable: found.checks.parseable,
    schema_valid: found.checks.schema_valid,
    semantic_density_score: r.density,
  };
  const manifest = evaluatePass(pass, r.policy);
  const receipt: PassReceipt = {
    chain_id: r.chainId,
    ...pass,
    input_content_hash: r.inputHash,
    content_class: r.contentClass,
    // Fixed now, so that a resend is the same body and the server answers it as a repeat.
    created_at: new Date().toISOString(),
    verdict: manifest.verdict,
    manifest_digest: manifest.manifest_digest,
  };
  if (r.metadata) receipt.metadata = r.metadata;
  if (r.sendContent) receipt.content = r.output;
  return { receipt, manifest };
}
