// A pass receipt judged by the server: the row the passes table stores, less what the
// ingest adds (the idempotency digest, the receipt time). Pure, so the ingest use case and
// the benchmarks' raw-insert baseline build the same row.
import type { PassWire } from "../chains/types";
import { type ContentPolicy, judgeContent, type MeasureContext } from "../content-checks/check-content";
import type { DensitySource } from "../content-checks/formats";
import { type CompressionPass, type CompressionPolicy, evaluatePass } from "./guard";

export type JudgedPass = Omit<PassWire, "received_at" | "created_at"> & {
  /** The density the server measured, or null: a column of its own for the chart and the recommendation. */
  measured_density: number | null;
};

export interface JudgeOptions {
  /**
   * The pass's content when the receipt carries none: the cached original whose SHA-256 is the
   * receipt's `current_content_hash`. Checked and measured exactly like content in the receipt.
   */
  content?: string | null;
  /** The chain's source (and the cached originals its markers name): the pass is measured against it. */
  measuring?: MeasureContext | null;
}

export interface ReceiptToJudge extends CompressionPass {
  chain_id: string;
  content_class: string;
  input_content_hash?: string | null;
  metadata?: Record<string, unknown> | null;
  /** What the client decided, if it sent it: compared with the server's verdict. */
  verdict?: string | null;
  manifest_digest?: string | null;
  /** The pass's output, when the client sent it: the server checks it for itself. */
  content?: string | null;
}

/**
 * The server's verdict under `policy`, and whether the client's verdict or digest disagree with
 * it. `verdict` and the digest are always the reference's output on the client's claims; with
 * content (and a policy that says how to read it) the server's own findings come beside them.
 */
export function judgeReceipt(
  r: ReceiptToJudge,
  policy: CompressionPolicy & { version: number; density_source?: DensitySource } & Partial<
      Omit<ContentPolicy, keyof CompressionPolicy>
    >,
  options: JudgeOptions = {},
): JudgedPass {
  const manifest = evaluatePass(r, policy);
  const content = r.content ?? options.content ?? null;
  const findings =
    content === null
      ? null
      : judgeContent(
          content,
          r,
          {
            ...policy,
            format: policy.format ?? "any",
            decoded_format: policy.decoded_format ?? null,
            required_fields: policy.required_fields ?? [],
          },
          options.measuring,
        );
  const measuredDensity = findings?.server_checks.semantic_density_score ?? null;
  const followsMeasurement = policy.density_source === "measured";
  const clientVerdict = r.verdict ?? null;
  const clientDigest = r.manifest_digest ?? null;
  return {
    chain_id: r.chain_id,
    pass_id: r.pass_id,
    pass_number: r.pass_number,
    input_content_hash: r.input_content_hash ?? null,
    current_content_hash: r.current_content_hash,
    current_size_bytes: r.current_size_bytes,
    is_parseable: r.is_parseable,
    schema_valid: r.schema_valid,
    semantic_density_score: r.semantic_density_score,
    content_class: r.content_class,
    metadata: r.metadata ?? null,
    client_verdict: clientVerdict,
    client_manifest_digest: clientDigest,
    ...manifest,
    policy_version: policy.version,
    client_mismatch:
      (clientVerdict !== null && clientVerdict !== manifest.verdict) ||
      (clientDigest !== null && clientDigest !== manifest.manifest_digest),
    server_checks: findings?.server_checks ?? null,
    checked_verdict: findings?.checked_verdict ?? null,
    checked_mismatch: findings?.checked_mismatch ?? false,
    measurement_mismatch: findings?.server_checks.measurement_mismatch ?? false,
    unmeasured: followsMeasurement && measuredDensity === null,
    effective_verdict:
      followsMeasurement && measuredDensity !== null && findings ? findings.checked_verdict : manifest.verdict,
    measured_density: measuredDensity,
  };
}
