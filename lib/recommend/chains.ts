// biome-ignore-all lint/style/noNonNullAssertion: typed-array reads at indices the loops keep in bounds; noUncheckedIndexedAccess cannot see that.
// Recorded chains as the floor recommendation reads them: in replay order, one column per
// field, so a class of a million passes is a handful of typed arrays rather than a million
// objects.

import type { BoundaryStrategy } from "../schemas/boundaries";

type RecordedStrategy = BoundaryStrategy;

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

interface RecordedBoundary {
  pass_number: number;
  strategy: RecordedStrategy;
}

export interface RecordedChain {
  chain_id: string;
  /** In the order they were recorded; replay order is by pass number, ties in this order. */
  passes: readonly RecordedPass[];
  boundaries?: readonly RecordedBoundary[];
  /**
   * For a guarded chain (its status: the guard reached a floor and the agent obeyed through a
   * boundary), the pass number of that floor, its collapse point. A save, not a failure.
   */
  guarded_at?: number | null;
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
  /** Per chain: where the guard stopped it when it is guarded (RecordedChain.guarded_at), Infinity otherwise. */
  guardedAt: Float64Array;
}

/** Boundaries that say content was already lost; a halt boundary is the guard doing its job. */
function isFailureBoundary(strategy: RecordedStrategy): boolean {
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
    guardedAt: new Float64Array(chains.length),
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
    cols.guardedAt[c] = chain.guarded_at ?? Number.POSITIVE_INFINITY;
  });
  cols.offsets[chains.length] = at;
  return cols;
}

/**
 * Where a guarded chain ends for the recommendation, null for any other chain: at the floor
 * the guard stopped it at, or at its first broken pass if one comes before (the guard stops
 * there under any floor). A floor that stops the chain before that pass halts it early.
 */
export function guardedEndOf(cols: ChainColumns, c: number): number | null {
  const floor = cols.guardedAt[c]!;
  if (!Number.isFinite(floor)) return null;
  for (let i = cols.offsets[c]!; i < cols.offsets[c + 1]!; i++) {
    if (cols.passNumber[i]! >= floor) break;
    if (cols.broken[i]!) return cols.passNumber[i]!;
  }
  return floor;
}

/**
 * The pass number of chain c's failure: its first broken pass or its first restore /
 * accept_loss boundary, whichever comes first; null for a healthy chain, and for a guarded
 * one: the guard stopped it there and its agent obeyed, a save rather than a failure.
 */
export function failureOf(cols: ChainColumns, c: number): number | null {
  if (Number.isFinite(cols.guardedAt[c]!)) return null;
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
 * one column per field for all passes in replay order. Pass numbers and sizes come either as
 * big-endian 8-byte integers (int8send) or as decimal integers joined by commas; densities as
 * big-endian 8-byte doubles (float8send), exact whatever the server's float output settings;
 * the broken flags as a string of '0' and '1'.
 */
interface PackedChains {
  chainIds: string[];
  passCounts: number[];
  passNumbers: Uint8Array | string;
  sizes: Uint8Array | string;
  densities: Uint8Array;
  broken: string;
  /** Least pass number of a restore or accept_loss boundary, for the chains that have one. */
  failureBoundaries: ReadonlyMap<string, number>;
  /** The guarded chains' floors (RecordedChain.guarded_at); none when absent. */
  guarded?: ReadonlyMap<string, number>;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function bigEndian(bytes: Uint8Array, kind: "int" | "float"): Float64Array {
  const out = new Float64Array(bytes.byteLength >> 3);
  if (kind === "float") {
    // Byte-swapped in place into the array's own buffer, then read as doubles in one go.
    const target = new Uint8Array(out.buffer);
    if (!LITTLE_ENDIAN) target.set(bytes.subarray(0, out.length * 8));
    else for (let i = 0; i < out.length * 8; i += 8) for (let b = 0; b < 8; b++) target[i + b] = bytes[i + 7 - b]!;
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) {
    // High and low words: exact for every integer a pass can hold (at most 2^53 - 1).
    out[i] = view.getInt32(i * 8) * 4294967296 + view.getUint32(i * 8 + 4);
  }
  return out;
}

/** Decimal integers joined by commas, as `string_agg(x::text, ',')` writes them. */
function decimalIntegers(text: string, count: number): Float64Array {
  const out = new Float64Array(count);
  if (text.length === 0 && count === 0) return out;
  let at = 0;
  let value = 0;
  let digits = 0;
  let negative = false;
  const push = () => {
    if (digits === 0) throw new Error("packed chains: an empty number in a list of integers");
    out[at++] = negative ? -value : value;
    value = 0;
    digits = 0;
    negative = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) push();
    else if (c === 45 && digits === 0 && !negative) negative = true;
    else if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
    } else throw new Error(`packed chains: '${text[i]}' in a list of integers`);
  }
  push();
  if (at !== count) throw new Error(`packed chains disagree: ${count} passes counted, ${at} numbers`);
  return out;
}

function numbers(packed: Uint8Array | string, count: number): Float64Array {
  return typeof packed === "string" ? decimalIntegers(packed, count) : bigEndian(packed, "int");
}

export function unpackChains(packed: PackedChains): ChainColumns {
  const n = packed.chainIds.length;
  const offsets = new Int32Array(n + 1);
  for (let c = 0; c < n; c++) offsets[c + 1] = offsets[c]! + packed.passCounts[c]!;
  const total = offsets[n]!;
  const passNumber = numbers(packed.passNumbers, total);
  const sizeBytes = numbers(packed.sizes, total);
  const density = bigEndian(packed.densities, "float");
  if (passNumber.length !== total || sizeBytes.length !== total || density.length !== total) {
    throw new Error(`packed chains disagree: ${total} passes counted, ${passNumber.length} numbers`);
  }
  const broken = new Uint8Array(total);
  for (let i = 0; i < total; i++) broken[i] = packed.broken.charCodeAt(i) === 49 ? 1 : 0;
  const boundaryFailure = new Float64Array(n);
  for (let c = 0; c < n; c++) boundaryFailure[c] = packed.failureBoundaries.get(packed.chainIds[c]!) ?? Infinity;
  const guardedAt = new Float64Array(n);
  for (let c = 0; c < n; c++) guardedAt[c] = packed.guarded?.get(packed.chainIds[c]!) ?? Infinity;
  const cols = {
    chainIds: packed.chainIds,
    offsets,
    passNumber,
    sizeBytes,
    density,
    broken,
    boundaryFailure,
    guardedAt,
  };
  ensureReplayOrder(cols);
  return cols;
}

/** Columns read in parts (ranges of chains), joined in order: the columns of all their chains. */
export function concatColumns(parts: readonly ChainColumns[]): ChainColumns {
  if (parts.length === 1) return parts[0]!;
  const chains = parts.reduce((n, p) => n + p.chainIds.length, 0);
  const passes = parts.reduce((n, p) => n + p.passNumber.length, 0);
  const out: ChainColumns = {
    chainIds: parts.flatMap((p) => p.chainIds),
    offsets: new Int32Array(chains + 1),
    passNumber: new Float64Array(passes),
    sizeBytes: new Float64Array(passes),
    density: new Float64Array(passes),
    broken: new Uint8Array(passes),
    boundaryFailure: new Float64Array(chains),
    guardedAt: new Float64Array(chains),
  };
  let chainAt = 0;
  let passAt = 0;
  for (const p of parts) {
    const n = p.chainIds.length;
    for (let c = 0; c < n; c++) out.offsets[chainAt + c] = passAt + p.offsets[c]!;
    out.boundaryFailure.set(p.boundaryFailure, chainAt);
    out.guardedAt.set(p.guardedAt, chainAt);
    out.passNumber.set(p.passNumber, passAt);
    out.sizeBytes.set(p.sizeBytes, passAt);
    out.density.set(p.density, passAt);
    out.broken.set(p.broken, passAt);
    chainAt += n;
    passAt += p.passNumber.length;
  }
  out.offsets[chains] = passAt;
  return out;
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
