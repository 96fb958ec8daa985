// Port of the Python reference's RecursiveCompressionCollapseGuard.
// Gate order, directive text and digest payloads are the contract: clients compare our
// output with their own guard's byte for byte.
import { sha256Hex } from "./hash";
import { pyFormatFixed, pyJsonString } from "./python";

export const VERDICTS = [
  "NO_RECURSIVE_COMPRESSION",
  "SAFE_TO_COMPRESS",
  "FLOOR_BREACH_DETECTED",
  "COLLAPSE_IMMINENT",
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Verdicts that mean the chain has collapsed (or will on the next pass). */
export const COLLAPSE_VERDICTS: ReadonlySet<Verdict> = new Set(["FLOOR_BREACH_DETECTED", "COLLAPSE_IMMINENT"]);

export interface CompressionPass {
  pass_id: string;
  pass_number: number;
  current_content_hash: string;
  current_size_bytes: number;
  is_parseable: boolean;
  schema_valid: boolean;
  semantic_density_score: number;
}

export interface CompressionPolicy {
  min_size_bytes: number;
  min_semantic_density: number;
  max_pass_number: number;
}

export interface CompressionManifest {
  verdict: Verdict;
  directive: string;
  manifest_digest: string;
}

/**
 * The guard's gates in its order: a pass stops at the first that decides. Only the
 * evaluate endpoint's byte path (evaluate-batch.ts) needs the gate apart from its text.
 */
export const GATES = {
  firstPass: 0,
  maxPass: 1,
  unparseable: 2,
  schemaInvalid: 3,
  tooSmall: 4,
  lowDensity: 5,
  safe: 6,
} as const;
export type Gate = (typeof GATES)[keyof typeof GATES];

/** The gate `cp` stops at under `policy`. */
export function gateOf(cp: CompressionPass, policy: CompressionPolicy): Gate {
  if (cp.pass_number <= 1) return GATES.firstPass;
  if (cp.pass_number > policy.max_pass_number) return GATES.maxPass;
  if (!cp.is_parseable) return GATES.unparseable;
  if (!cp.schema_valid) return GATES.schemaInvalid;
  if (cp.current_size_bytes < policy.min_size_bytes) return GATES.tooSmall;
  if (cp.semantic_density_score < policy.min_semantic_density) return GATES.lowDensity;
  return GATES.safe;
}

// The digest payloads are json.dumps(..., sort_keys=True) of fixed string-valued dicts,
// written out with their keys already in sorted order.
export function evaluatePass(cp: CompressionPass, policy: CompressionPolicy): CompressionManifest {
  switch (gateOf(cp, policy)) {
    case GATES.firstPass:
      return {
        verdict: "NO_RECURSIVE_COMPRESSION",
        directive: `PROCEED: Pass ${cp.pass_id} is first pass.`,
        manifest_digest: sha256Hex(
          `{"number": ${pyJsonString(String(cp.pass_number))}, "pass": ${pyJsonString(cp.pass_id)}}`,
        ),
      };
    case GATES.maxPass:
      return {
        verdict: "COLLAPSE_IMMINENT",
        directive: `HALT: Pass ${cp.pass_number} > ${policy.max_pass_number}, use previous.`,
        manifest_digest: sha256Hex(`MAX_PASS:${cp.pass_id}`),
      };
    case GATES.unparseable:
      return {
        verdict: "FLOOR_BREACH_DETECTED",
        directive: `HALT: Pass ${cp.pass_id} unparseable, restore previous.`,
        manifest_digest: sha256Hex(`UNPARSEABLE:${cp.pass_id}`),
      };
    case GATES.schemaInvalid:
      return {
        verdict: "FLOOR_BREACH_DETECTED",
        directive: `HALT: Pass ${cp.pass_id} schema invalid.`,
        manifest_digest: sha256Hex(`SCHEMA:${cp.pass_id}`),
      };
    case GATES.tooSmall:
      return {
        verdict: "COLLAPSE_IMMINENT",
        directive: `HALT: Size ${cp.current_size_bytes} < ${policy.min_size_bytes}, next pass will collapse.`,
        manifest_digest: sha256Hex(`SMALL:${cp.pass_id}`),
      };
    case GATES.lowDensity: {
      const density = pyFormatFixed(cp.semantic_density_score, 2);
      const floor = pyFormatFixed(policy.min_semantic_density, 2);
      return {
        verdict: "COLLAPSE_IMMINENT",
        directive: `HALT: Density ${density} < ${floor}.`,
        manifest_digest: sha256Hex(`LOW_DENSITY:${cp.pass_id}`),
      };
    }
    case GATES.safe:
      return {
        verdict: "SAFE_TO_COMPRESS",
        directive: `PROCEED: Pass ${cp.pass_number} safe for further compression.`,
        manifest_digest: sha256Hex(
          `{"density": ${pyJsonString(pyFormatFixed(cp.semantic_density_score, 3))}, "hash": ${pyJsonString(cp.current_content_hash)}, ` +
            `"number": ${pyJsonString(String(cp.pass_number))}, "pass": ${pyJsonString(cp.pass_id)}, "size": ${pyJsonString(String(cp.current_size_bytes))}}`,
        ),
      };
  }
}
