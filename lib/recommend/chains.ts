// biome-ignore-all lint/style/noNonNullAssertion: typed-array reads at indices the loops keep in bounds; noUncheckedIndexedAccess cannot see that.
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
  let failure = cols.boundaryFailure[c]!;
  for (let i = cols.offsets[c]!; i < cols.offsets[c + 1]!; i++) {
    if (cols.passNumber[i]! >= failure) break;
    if (cols.broken[i]!) {
      failure = cols.passNumber[i]!;
      break;
    }
  }
  return Number.isFinite(failure) ? failure : null;
}

/**
 * A class's passes as the database hands them over: per chain its id and pass count, then
 * one column per field for all passes in replay order, the numbers as big-endian 8-byte
 * values (int8send / float8send), the broken flags as a string of '0' and '1'.
 */
export interface PackedChains {
  chainIds: string[];
  passCounts: number[];
  passNumbers: Uint8Array;
  sizes: Uint8Array;
  densities: Uint8Array;
  broken: string;
  /** Least pass number of a restore or accept_loss boundary, for the chains that have one. */
  failureBoundaries: ReadonlyMap<string, number>;
}

function bigEndian(bytes: Uint8Array, kind: "int" | "float"): Float64Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(bytes.byteLength >> 3);
  for (let i = 0; i < out.length; i++) {
    out[i] = kind === "int" ? Number(view.getBigInt64(i * 8)) : view.getFloat64(i * 8);
  }
  return out;
}

export function unpackChains(packed: PackedChains): ChainColumns {
  const n = packed.chainIds.length;
  const offsets = new Int32Array(n + 1);
  for (let c = 0; c < n; c++) offsets[c + 1] = offsets[c]! + packed.passCounts[c]!;
  const passNumber = bigEndian(packed.passNumbers, "int");
  const sizeBytes = bigEndian(packed.sizes, "int");
  const density = bigEndian(packed.densities, "float");
  const total = offsets[n]!;
  if (passNumber.length !== total || sizeBytes.length !== total || density.length !== total) {
    throw new Error(`packed chains disagree: ${total} passes counted, ${passNumber.length} numbers`);
  }
  const broken = new Uint8Array(total);
  for (let i = 0; i < total; i++) broken[i] = packed.broken.charCodeAt(i) === 49 ? 1 : 0;
  const boundaryFailure = new Float64Array(n);
  for (let c = 0; c < n; c++) boundaryFailure[c] = packed.failureBoundaries.get(packed.chainIds[c]!) ?? Infinity;
  const cols = { chainIds: packed.chainIds, offsets, passNumber, sizeBytes, density, broken, boundaryFailure };
  ensureReplayOrder(cols);
  return cols;
}

/**
 * The database is asked for passes in replay order; should a plan ever hand a chain's passes
 * over in another order, that chain is put right here (a stable sort by pass number).
 */
function ensureReplayOrder(cols: ChainColumns): void {
  const { offsets, passNumber, sizeBytes, density, broken } = cols;
  for (let c = 0; c + 1 < offsets.length; c++) {
    const start = offsets[c]!;
    const end = offsets[c + 1]!;
    let sorted = true;
    for (let i = start + 1; i < end && sorted; i++) sorted = passNumber[i - 1]! <= passNumber[i]!;
    if (sorted) continue;
    const order = Array.from({ length: end - start }, (_, i) => start + i).sort(
      (a, b) => passNumber[a]! - passNumber[b]! || a - b,
    );
    const copy = (col: Float64Array | Uint8Array) => {
      const values = order.map((i) => col[i]!);
      values.forEach((v, i) => {
        col[start + i] = v;
      });
    };
    copy(passNumber);
    copy(sizeBytes);
    copy(density);
    copy(broken);
  }
}
