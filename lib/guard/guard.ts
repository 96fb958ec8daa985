// Port of the Python reference's RecursiveCompressionCollapseGuard.
// Gate order, directive text and digest payloads are the contract: clients compare our
// output with their own guard's byte for byte.
import { sha256Hex } from "./hash";
import { pyFormatFixed, pyJsonChars } from "./python";

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
 * evaluate endpoint's byte path (lib/guard/batch) needs the gate apart from its text.
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
type Gate = (typeof GATES)[keyof typeof GATES];
type GateName = keyof typeof GATES;

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

type Value = string | number;

/** One gate's manifest as text around its values. */
interface GateText {
  verdict: Verdict;
  directive: (...values: Value[]) => string;
  /** What manifest_digest is the SHA-256 of. */
  payload: (...values: Value[]) => string;
}

/**
 * Each gate's verdict, directive and digest payload: the contract's wording, written once.
 * evaluatePass fills in a pass's values; the evaluate endpoint's byte path (lib/guard/batch)
 * cuts each text at its values and writes the pieces around values it copies from the
 * request's bytes, so the two cannot word a manifest differently.
 *
 * The JSON payloads are json.dumps(..., sort_keys=True) of fixed string-valued dicts, written
 * out with their keys already in sorted order; their string values come in escaped as
 * json.dumps escapes them (pyJsonChars). The other payloads take the pass id as it is.
 */
export const MANIFEST_TEXT = {
  firstPass: {
    verdict: "NO_RECURSIVE_COMPRESSION",
    directive: (passId: Value) => `PROCEED: Pass ${passId} is first pass.`,
    payload: (number: Value, passId: Value) => `{"number": "${number}", "pass": "${passId}"}`,
  },
  maxPass: {
    verdict: "COLLAPSE_IMMINENT",
    directive: (number: Value, max: Value) => `HALT: Pass ${number} > ${max}, use previous.`,
    payload: (passId: Value) => `MAX_PASS:${passId}`,
  },
  unparseable: {
    verdict: "FLOOR_BREACH_DETECTED",
    directive: (passId: Value) => `HALT: Pass ${passId} unparseable, restore previous.`,
    payload: (passId: Value) => `UNPARSEABLE:${passId}`,
  },
  schemaInvalid: {
    verdict: "FLOOR_BREACH_DETECTED",
    directive: (passId: Value) => `HALT: Pass ${passId} schema invalid.`,
    payload: (passId: Value) => `SCHEMA:${passId}`,
  },
  tooSmall: {
    verdict: "COLLAPSE_IMMINENT",
    directive: (size: Value, min: Value) => `HALT: Size ${size} < ${min}, next pass will collapse.`,
    payload: (passId: Value) => `SMALL:${passId}`,
  },
  lowDensity: {
    verdict: "COLLAPSE_IMMINENT",
    // Both densities as Python's f"{x:.2f}" prints them (pyFormatFixed).
    directive: (density: Value, floor: Value) => `HALT: Density ${density} < ${floor}.`,
    payload: (passId: Value) => `LOW_DENSITY:${passId}`,
  },
  safe: {
    verdict: "SAFE_TO_COMPRESS",
    directive: (number: Value) => `PROCEED: Pass ${number} safe for further compression.`,
    // The density as f"{x:.3f}" prints it; the numbers as str() does.
    payload: (density: Value, hash: Value, number: Value, passId: Value, size: Value) =>
      `{"density": "${density}", "hash": "${hash}", "number": "${number}", "pass": "${passId}", "size": "${size}"}`,
  },
} as const satisfies Record<GateName, GateText>;

export function evaluatePass(cp: CompressionPass, policy: CompressionPolicy): CompressionManifest {
  const id = cp.pass_id;
  switch (gateOf(cp, policy)) {
    case GATES.firstPass: {
      const text = MANIFEST_TEXT.firstPass;
      return manifest(text.verdict, text.directive(id), text.payload(cp.pass_number, pyJsonChars(id)));
    }
    case GATES.maxPass: {
      const text = MANIFEST_TEXT.maxPass;
      return manifest(text.verdict, text.directive(cp.pass_number, policy.max_pass_number), text.payload(id));
    }
    case GATES.unparseable: {
      const text = MANIFEST_TEXT.unparseable;
      return manifest(text.verdict, text.directive(id), text.payload(id));
    }
    case GATES.schemaInvalid: {
      const text = MANIFEST_TEXT.schemaInvalid;
      return manifest(text.verdict, text.directive(id), text.payload(id));
    }
    case GATES.tooSmall: {
      const text = MANIFEST_TEXT.tooSmall;
      return manifest(text.verdict, text.directive(cp.current_size_bytes, policy.min_size_bytes), text.payload(id));
    }
    case GATES.lowDensity: {
      const text = MANIFEST_TEXT.lowDensity;
      const density = pyFormatFixed(cp.semantic_density_score, 2);
      return manifest(
        text.verdict,
        text.directive(density, pyFormatFixed(policy.min_semantic_density, 2)),
        text.payload(id),
      );
    }
    case GATES.safe: {
      const text = MANIFEST_TEXT.safe;
      const density = pyFormatFixed(cp.semantic_density_score, 3);
      const hash = pyJsonChars(cp.current_content_hash);
      return manifest(
        text.verdict,
        text.directive(cp.pass_number),
        text.payload(density, hash, cp.pass_number, pyJsonChars(id), cp.current_size_bytes),
      );
    }
  }
}

function manifest(verdict: Verdict, directive: string, payload: string): CompressionManifest {
  return { verdict, directive, manifest_digest: sha256Hex(payload) };
}
