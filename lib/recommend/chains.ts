// Recorded chains as the floor recommendation reads them: in replay order, one column per
// field, so a class of a million passes is a handful of typed arrays rather than a million
// objects.

export type RecordedStrategy = "halt" | "restore" | "accept_loss";

export interface RecordedPass {
  pass_id?: string;
  pass_number: number;
  current_content_hash?: string;
  current_size_bytes: number;
  semantic_density_score: number;
  is_parseable: boolean;
  schema_valid: boolean;
  /** What the server found when it checked the pass's content; absent when it did not check. */
  checked?: { parseable: boolean; schema_valid: boolean } | null;
}

export interface RecordedBoundary {
  pass_number: number;
  strategy: RecordedStrategy;
}

export interface RecordedChain {
  chain_id: string;
  /** In the order they were recorded; replay order is by pass number, ties in this order. */
  passes: readonly RecordedPass[];
  boundaries?: readonly RecordedBoundary[];
}

export interface ChainColumns {
  chainIds: string[];
  /** Chain c's passes are [offsets[c], offsets[c + 1]), in replay order. */
  offsets: Int32Array;
  passNumber: Float64Array;
  sizeBytes: Float64Array;
  density: Float64Array;
  /** 1 when the pass is unparseable or schema-invalid, as claimed or as the server found. */
  broken: Uint8Array;
  /** Per chain: the least pass number of a restore or accept_loss boundary, Infinity if none. */
  boundaryFailure: Float64Array;
}

/** Boundaries that say content was already lost; a halt boundary is the guard doing its job. */
export function isFailureBoundary(strategy: RecordedStrategy): boolean {
  return strategy === "restore" || strategy === "accept_loss";
}

export function isBroken(pass: RecordedPass): boolean {
  if (!pass.is_parseable || !pass.schema_valid) return true;
  return pass.checked != null && (!pass.checked.parseable || !pass.checked.schema_valid);
}

/** Passes in replay order: by pass number, ties kept in recorded order (the sort is stable). */
export function inReplayOrder<P extends { pass_number: number }>(passes: readonly P[]): P[] {
  return [...passes].sort((a, b) => a.pass_number - b.pass_number);
}

export function toColumns(chains: readonly RecordedChain[]): ChainColumns {
  const total = chains.reduce((n, c) => n + c.passes.length, 0);
  const cols: ChainColumns = {
    chainIds: chains.map((c) => c.chain_id),
    offsets: new Int32Array(chains.length + 1),
    passNumber: new Float64Array(total),
    sizeBytes: new Float64Array(total),
    density: new Float64Array(total),
    broken: new Uint8Array(total),
    boundaryFailure: new Float64Array(chains.length),
  };
  let at = 0;
  chains.forEach((chain, c) => {
    cols.offsets[c] = at;
    for (const pass of inReplayOrder(chain.passes)) {
      cols.passNumber[at] = pass.pass_number;
      cols.sizeBytes[at] = pass.current_size_bytes;
      cols.density[at] = pass.semantic_density_score;
      cols.broken[at] = isBroken(pass) ? 1 : 0;
      at++;
    }
    let boundary = Number.POSITIVE_INFINITY;
    for (const b of chain.boundaries ?? []) {
      if (isFailureBoundary(b.strategy) && b.pass_number < boundary) boundary = b.pass_number;
    }
    cols.boundaryFailure[c] = boundary;
  });
  cols.offsets[chains.length] = at;
  return cols;
}

/**
 * The pass number of chain c's failure: its first broken pass or its first restore /
 * accept_loss boundary, whichever comes first; null for a healthy chain.
 */
export function failureOf(cols: ChainColumns, c: number): number | null {
  let failure = cols.boundaryFailure[c];
  for (let i = cols.offsets[c]; i < cols.offsets[c + 1]; i++) {
    if (cols.passNumber[i] >= failure) break;
    if (cols.broken[i]) {
      failure = cols.passNumber[i];
      break;
    }
  }
  return Number.isFinite(failure) ? failure : null;
}
