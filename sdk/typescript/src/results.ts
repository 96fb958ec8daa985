// What the agent gets back from a chain, and what it gives: a pass's result, the options of
// recordPass and compressUntilFloor, a breach's context and a boundary receipt. The twin of the
// Python SDK's results.py.
import type { CanaryCheck, PlantFormat } from "../../../lib/canaries/canaries";
import type { Verdict } from "../../../lib/guard/guard";
import type { Measurement } from "../../../lib/measure/index";
import type { Strategy } from "./args";
import type { PassReceipt, Policy } from "./receipt";

export interface PassResult {
  verdict: Verdict;
  directive: string;
  manifestDigest: string;
  receipt: PassReceipt;
  /** What the measurement found; its density is the receipt's unless the agent claimed one. */
  measured: Measured;
  /** The output to hand on: with cacheOriginals, the compressed output plus its CCR marker. */
  output: string;
  /** With cacheOriginals, the key the input was cached under (the marker's); else null. */
  originalKey: string | null;
  /** Which of the chain's planted canaries survive in the output (null before any is planted). */
  canaryCheck: CanaryCheck | null;
}

export interface PlantOptions {
  /** How many canaries to plant (1 to 16 per chain in all; default 4, one of each kind). */
  count?: number;
  /** By default the chain id: the same chain plants the same canaries. */
  seed?: string;
  /** How the content carries facts (json, log or text); detected when absent. */
  format?: PlantFormat;
}

export type Measured = Measurement;

export interface RecordOptions {
  /** A density claimed by the agent, used in place of the measured one. */
  density?: number;
  /** By default `<chain id>.p<n>`. */
  passId?: string;
  /** Merged over the chain's metadata. */
  metadata?: Record<string, unknown>;
  /** With cacheOriginals, item counts for the marker: `[N items compressed to M. ...]`. */
  originalItems?: number;
  compressedItems?: number;
  /**
   * What this pass replaced, stored as a cached original (`POST /api/v1/originals`) with no
   * marker added to the output: for a compaction a framework made, whose output the agent
   * already holds as it is. Not counted as recoverable by the measurement (nothing points at it).
   */
  original?: string;
  /**
   * A check of other text (`checkCanaries`), sent in place of the check of this pass's output:
   * for a compactor whose output does not show what it kept.
   */
  canaryCheck?: CanaryCheck;
  /**
   * The tool names the agent's context offered when this pass's output was used (at most 64 of
   * at most 128 characters): markers sent to a context without a retrieve tool are a finding
   * (docs/markers.md).
   */
  contextTools?: readonly string[];
}

/** A pass whose content cannot be read (encrypted, or applied out of sight): sizes, no measurement. */
export interface OpaquePassOptions {
  /** The output's size in bytes, as far as it is known. */
  sizeBytes: number;
  /** The output's SHA-256 when its bytes are known; "" (the wire allows it) when they are not. */
  hash?: string;
  metadata?: Record<string, unknown>;
  original?: string;
  /** What the agent's next output or context kept of the planted canaries (`checkCanaries`). */
  canaryCheck?: CanaryCheck;
}

/** A compressor's result: the output, or the output with the density the agent claims for it. */
export type Compressed = string | { output: string; density?: number };

export interface BreachContext {
  pass: PassResult;
  policy: Policy;
  /** The last output the guard let through (the chain's content before the breaching pass). */
  previous: string;
}

export interface CompressOptions {
  /** Picks the strategy at a breach; by default FLOOR_BREACH restores and COLLAPSE_IMMINENT halts. */
  onBreach?: (breach: BreachContext) => Strategy | Promise<Strategy>;
  /** A safety stop for a policy whose max_pass_number is very large (default 100). */
  maxPasses?: number;
}

export interface CompressOutcome {
  /** The content to use from here on. */
  content: string;
  strategy: Strategy | null;
  /** Why compression stopped: the breaching pass's directive, or that the compressor stopped shrinking. */
  reason: string;
  passes: PassResult[];
  boundary: BoundaryReceipt | null;
}

export interface BoundaryReceipt {
  chain_id: string;
  pass_number: number;
  strategy: Strategy;
  reason: string;
  restore_pass_id?: string;
  relaxed_policy?: Record<string, unknown>;
}

/**
 * The strategy when the agent picks none, as the guard's directives say: a floor breach (the
 * output unparseable or schema-invalid) restores the previous pass's output and names it;
 * COLLAPSE_IMMINENT (past the last pass, too small, too sparse) halts on it.
 */
export function defaultStrategy(verdict: Verdict): Strategy {
  return verdict === "FLOOR_BREACH_DETECTED" ? "restore" : "halt";
}
