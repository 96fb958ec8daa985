// A pass receipt judged by the server: the row the passes table stores, less what the
// ingest adds (the idempotency digest, the receipt time). Pure, so the ingest use case and
// the benchmarks' raw-insert baseline build the same row.
import type { PassWire } from "../chains/types";
import { type ContentPolicy, judgeContent, type MeasuredContent } from "../content-checks/check-content";
import type { DensitySource } from "../content-checks/formats";
import { type CompressionPolicy, evaluatePass } from "./guard";
import { keptReceiptFields, type PassReceipt } from "../schemas/passes";

type JudgedPass = Omit<PassWire, "received_at" | "created_at"> & {
  /** The density the server measured, or null: a column of its own for the chart and the recommendation. */
  measured_density: number | null;
};

interface JudgeOptions {
  /**
   * The pass's content when the receipt carries none: the cached original whose SHA-256 is the
   * receipt's `current_content_hash`. Checked and measured exactly like content in the receipt.
   */
  content?: string | null;
  /** The content measured against the chain's source (db/ingest measures before judging). */
  measured?: MeasuredContent | null;
}

/**
 * The server's verdict under `policy`, and whether the client's verdict or digest disagree with
 * it. `verdict` and the digest are always the reference's output on the client's claims; with
 * content (and a policy that says how to read it) the server's own findings come beside them.
 */
export function judgeReceipt(
  r: PassReceipt,
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
          options.measured,
        );
  const measuredDensity = findings?.server_checks.semantic_density_score ?? null;
  const followsMeasurement = policy.density_source === "measured";
  const clientVerdict = r.verdict ?? null;
  const clientDigest = r.manifest_digest ?? null;
  // Completed in place: a spread of the judged row costs more than the judging.
  const row = keptReceiptFields(r) as JudgedPass;
  row.client_verdict = clientVerdict;
  row.client_manifest_digest = clientDigest;
  row.verdict = manifest.verdict;
  row.directive = manifest.directive;
  row.manifest_digest = manifest.manifest_digest;
  row.policy_version = policy.version;
  row.client_mismatch =
    (clientVerdict !== null && clientVerdict !== manifest.verdict) ||
    (clientDigest !== null && clientDigest !== manifest.manifest_digest);
  row.server_checks = findings?.server_checks ?? null;
  row.checked_verdict = findings?.checked_verdict ?? null;
  row.checked_mismatch = findings?.checked_mismatch ?? false;
  row.measurement_mismatch = findings?.server_checks.measurement_mismatch ?? false;
  row.unmeasured = followsMeasurement && measuredDensity === null;
  row.effective_verdict =
    followsMeasurement && measuredDensity !== null && findings ? findings.checked_verdict : manifest.verdict;
  row.measured_density = measuredDensity;
  // What survives of the chain's canaries needs its earlier passes: the ingest fills these in.
  row.canaries_surviving = null;
  row.canary_retention = null;
  return row;
}
