// What the chart's downsampling keeps, and why. The selection itself is done once, in SQL
// (db/queries/chain-series.ts), so that a chain of 100,000 passes never leaves Postgres in
// full; this module holds its parameters and the flag rules, which also mark the rows of
// the passes table (db/queries/passes.ts). The SQL inlines PASS_FLAG and DOWNSAMPLE from
// here; test/support/downsample-oracle.ts checks the SQL's selection against a plain
// in-memory one.

import { type IntegrityContext, NO_CONTEXT } from "./integrity";

/** Why a pass must stay on the chart whatever the downsampling. One bit per reason. */
export const PASS_FLAG = {
  first: 1,
  last: 2,
  verdictChange: 4,
  policyChange: 8,
  sizeCrossing: 16,
  densityCrossing: 32,
  clientMismatch: 64,
  integrity: 128,
  boundary: 256,
} as const;

export const DOWNSAMPLE = {
  /** Buckets across the x axis; each keeps at most six real passes (first, last, min/max of each curve). */
  buckets: 200,
  /** Up to this many passes every pass is drawn. */
  fullDetailUpTo: 1_500,
  /**
   * Flagged passes kept beyond the buckets. A chain that crosses its floor on every pass
   * would otherwise bring all of its passes back; past this many the earliest are kept.
   */
  flaggedCap: 4_000,
} as const;

export interface FlagInput {
  pass_id: string;
  pass_number: number;
  input_content_hash: string | null;
  current_content_hash: string;
  current_size_bytes: number;
  semantic_density_score: number;
  verdict: string;
  client_mismatch: boolean;
  /** Kept like a client mismatch: the content contradicts the client's claims. */
  checked_mismatch?: boolean;
  /** Kept too: the measured density changes the guard's verdict on the claims. */
  measurement_mismatch?: boolean;
  policy_version: number;
  content_class: string;
  /** The floor of the policy version that judged this pass. */
  floor_size: number;
  floor_density: number;
}

/**
 * The flags of `cur` given the pass before it in chain order (null for the first pass).
 * Mirrors the SQL in getChainSeries and the integrity rules of lib/chains/integrity.ts.
 */
export function passFlags(
  prev: FlagInput | null,
  cur: FlagInput,
  options: { isLast?: boolean; isBoundary?: boolean; context?: IntegrityContext } = {},
): number {
  const context = options.context ?? NO_CONTEXT;
  let flags = 0;
  // The first pass above the halt point (lib/chains/integrity.ts): once per halt.
  if (context.halt_at !== null && cur.pass_number > context.halt_at && !(prev && prev.pass_number > context.halt_at)) {
    flags |= PASS_FLAG.integrity;
  }
  if (options.isLast) flags |= PASS_FLAG.last;
  if (options.isBoundary) flags |= PASS_FLAG.boundary;
  if (cur.client_mismatch || cur.checked_mismatch || cur.measurement_mismatch) flags |= PASS_FLAG.clientMismatch;
  if (!prev) {
    flags |= PASS_FLAG.first;
    if (cur.pass_number > 1) flags |= PASS_FLAG.integrity;
    return flags;
  }
  if (prev.verdict !== cur.verdict) flags |= PASS_FLAG.verdictChange;
  if (prev.policy_version !== cur.policy_version || prev.content_class !== cur.content_class)
    flags |= PASS_FLAG.policyChange;
  if (prev.current_size_bytes < prev.floor_size !== cur.current_size_bytes < cur.floor_size)
    flags |= PASS_FLAG.sizeCrossing;
  if (prev.semantic_density_score < prev.floor_density !== cur.semantic_density_score < cur.floor_density) {
    flags |= PASS_FLAG.densityCrossing;
  }
  const repeated = cur.pass_number === prev.pass_number;
  const gap = cur.pass_number > prev.pass_number + 1;
  // Right after a restore boundary the input must be the restored pass's output instead.
  const expected = context.restores.get(prev.pass_number)?.expected_hash ?? prev.current_content_hash;
  const hashBreak =
    cur.pass_number === prev.pass_number + 1 && cur.input_content_hash !== null && cur.input_content_hash !== expected;
  if (repeated || gap || hashBreak) flags |= PASS_FLAG.integrity;
  return flags;
}
