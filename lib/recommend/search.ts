// biome-ignore-all lint/style/noNonNullAssertion: typed-array reads at indices the loops keep in bounds; noUncheckedIndexedAccess cannot see that.
// The search for recommended floors.
//
// A floor has three thresholds; what it does to the recorded chains changes only where a
// threshold crosses a recorded value. Whether a chain is caught (or halted early) depends on
// three numbers per chain (profile.ts), so the candidate thresholds are those numbers: on
// each axis, "stop every chain whose value is at or past this one". When an axis has more
// distinct values than the budget, its candidates are quantiles of them, always including
// the extremes, the loosest floor that halts no healthy chain and the floor in force.
// Every candidate floor of the grid is then scored at once: caught and halted-early counts
// are 3-D dominance counts, read from suffix sums over a histogram of the chains' ranks.
// Compression kept is computed exactly (outcomeOf), but only for the finalists of each
// option, because among floors that catch and halt the same chains the loosest keep the
// most compression. One file, longer than most: the grid's axes, its scoring and the
// presentation of the options share one encoding of a floor that nothing else needs.
import type { CompressionPolicy } from "@/lib/guard/guard";
import type { ChainColumns } from "./chains";
import { type ClassProfile, type Outcome, outcomeOf, profileChains } from "./profile";
import { roundestDecimal, roundestInteger } from "./round";

/** Below this many recorded chains the answer is `not_enough_data`. */
const MIN_RECORDED_CHAINS = 10;

const OPTION_NAMES = ["strict", "balanced", "lenient"] as const;
export type OptionName = (typeof OPTION_NAMES)[number];

interface FloorOption extends Outcome {
  name: OptionName;
  policy: CompressionPolicy;
}

export interface Recommendation {
  /** `chains` = `healthy` + `guarded` + `failures`. */
  based_on: { chains: number; healthy: number; guarded: number; failures: number; passes: number };
  current: Outcome;
  options: FloorOption[];
}

export type RecommendationResult =
  | { ok: true; recommendation: Recommendation }
  | { ok: false; reason: "not_enough_data"; chains: number; minimum: number };

interface SearchLimits {
  minChains?: number;
  /** Candidate thresholds per axis for size and density. */
  candidatesPerAxis?: number;
  /** Candidate thresholds for the pass-number axis. */
  passCandidates?: number;
  /** Floors per option whose compression kept is computed before one is chosen. */
  finalists?: number;
}

const DEFAULT_LIMITS: Required<SearchLimits> = {
  minChains: MIN_RECORDED_CHAINS,
  candidatesPerAxis: 96,
  passCandidates: 64,
  finalists: 32,
};

// Axes in "key" space, where a larger key is further from trouble on every axis:
// key < threshold means the guard stops at the pass. Pass numbers are negated for that.
const PASS = 0;
const SIZE = 1;
const DENSITY = 2;
type AxisId = typeof PASS | typeof SIZE | typeof DENSITY;

function thresholdKey(floor: CompressionPolicy, axis: AxisId): number {
  if (axis === PASS) return -floor.max_pass_number;
  return axis === SIZE ? floor.min_size_bytes : floor.min_semantic_density;
}

function keysOf(agg: ClassProfile["catchable"], axis: AxisId): Float64Array {
  const out = new Float64Array(agg.count);
  for (let i = 0; i < agg.count; i++) {
    out[i] = axis === PASS ? -agg.maxPass[i]! : axis === SIZE ? agg.minSize[i]! : agg.minDensity[i]!;
  }
  return out;
}

/** Index of the first element >= key in an ascending array (its length if none). */
function lowerBound(sorted: Float64Array, key: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Candidates on one axis, ascending: cell i (1-based) stops every chain whose key <= cand[i - 1]. */
function candidateKeys(
  failing: Float64Array,
  healthy: Float64Array,
  current: number,
  budget: number,
  admissible: (key: number) => boolean,
): Float64Array {
  const sorted = new Float64Array(failing.length + healthy.length);
  let size = 0;
  for (const keys of [failing, healthy]) {
    for (let i = 0; i < keys.length; i++) if (admissible(keys[i]!)) sorted[size++] = keys[i]!;
  }
  const values = sorted.subarray(0, size).sort();
  let distinct = 0;
  for (let i = 0; i < values.length; i++) if (i === 0 || values[i]! !== values[i - 1]!) distinct++;
  if (distinct <= budget) {
    const out = new Float64Array(distinct);
    let at = 0;
    for (let i = 0; i < values.length; i++) if (i === 0 || values[i]! !== values[i - 1]!) out[at++] = values[i]!;
    return out;
  }
  const picked = new Set<number>();
  for (let q = 0; q < budget; q++) picked.add(values[Math.round((q * (values.length - 1)) / (budget - 1))]!);
  // The loosest cell that halts no healthy chain, and the cell that does what the floor in
  // force does, so lenient and the comparison with the current floor stay exact.
  let minHealthy = Number.POSITIVE_INFINITY;
  for (let i = 0; i < healthy.length; i++) if (healthy[i]! < minHealthy) minHealthy = healthy[i]!;
  const below = (limit: number) => {
    const at = lowerBound(values, limit);
    return at === 0 ? Number.NEGATIVE_INFINITY : values[at - 1]!;
  };
  for (const k of [below(minHealthy), below(current)]) if (Number.isFinite(k)) picked.add(k);
  return Float64Array.from([...picked].sort((a, b) => a - b));
}

const bits = new DataView(new ArrayBuffer(8));
/** The least double above a non-negative x. */
function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  bits.setFloat64(0, x);
  bits.setBigUint64(0, bits.getBigUint64(0) + 1n);
  return bits.getFloat64(0);
}

type Cell = [number, number, number];

interface Grid {
  cand: [Float64Array, Float64Array, Float64Array];
  /** Cells per axis: 0 stops nothing on that axis, i stops keys <= cand[i - 1]. */
  dims: [number, number, number];
  caught: Int32Array;
  halted: Int32Array;
}

function cellIndex(grid: Grid, a: number, b: number, c: number): number {
  return (a * grid.dims[1] + b) * grid.dims[2] + c;
}

/** For every cell, how many chains it leaves alone: chains whose rank on each axis is past the cell. */
function untouchedCounts(
  keys: readonly [Float64Array, Float64Array, Float64Array],
  count: number,
  cand: Grid["cand"],
  dims: Grid["dims"],
): Int32Array {
  // Ranks run 1..n+1 (n+1: no candidate reaches the chain); one slot more for the suffix sums.
  const [A, B, C] = [dims[0] + 1, dims[1] + 1, dims[2] + 1];
  const hist = new Int32Array(A * B * C);
  for (let i = 0; i < count; i++) {
    const ra = lowerBound(cand[PASS], keys[PASS][i]!) + 1;
    const rb = lowerBound(cand[SIZE], keys[SIZE][i]!) + 1;
    const rc = lowerBound(cand[DENSITY], keys[DENSITY][i]!) + 1;
    const at = (ra * B + rb) * C + rc;
    hist[at] = hist[at]! + 1;
  }
  for (let a = A - 2; a >= 0; a--)
    for (let j = 0; j < B * C; j++) hist[a * B * C + j] = hist[a * B * C + j]! + hist[(a + 1) * B * C + j]!;
  for (let a = 0; a < A; a++)
    for (let b = B - 2; b >= 0; b--)
      for (let c = 0; c < C; c++)
        hist[(a * B + b) * C + c] = hist[(a * B + b) * C + c]! + hist[(a * B + b + 1) * C + c]!;
  for (let j = 0; j < A * B; j++)
    for (let c = C - 2; c >= 0; c--) hist[j * C + c] = hist[j * C + c]! + hist[j * C + c + 1]!;
  const out = new Int32Array(dims[0] * dims[1] * dims[2]);
  for (let a = 0; a < dims[0]; a++)
    for (let b = 0; b < dims[1]; b++)
      for (let c = 0; c < dims[2]; c++) out[(a * dims[1] + b) * dims[2] + c] = hist[((a + 1) * B + b + 1) * C + c + 1]!;
  return out;
}

function buildGrid(profile: ClassProfile, current: CompressionPolicy, limits: Required<SearchLimits>): Grid {
  const axes = [PASS, SIZE, DENSITY] as const;
  const keys = (agg: ClassProfile["catchable"]) =>
    [keysOf(agg, PASS), keysOf(agg, SIZE), keysOf(agg, DENSITY)] as const;
  const failKeys = keys(profile.catchable);
  const healthyKeys = keys(profile.haltable);
  const budget = (axis: AxisId) => Math.max(2, axis === PASS ? limits.passCandidates : limits.candidatesPerAxis);
  // A density of 1 cannot be stopped: min_semantic_density is at most 1 and the gate is `<`.
  const admissible = (axis: AxisId) => (axis === DENSITY ? (k: number) => k < 1 : () => true);
  const cand = axes.map((axis) =>
    candidateKeys(failKeys[axis], healthyKeys[axis], thresholdKey(current, axis), budget(axis), admissible(axis)),
  ) as Grid["cand"];
  const dims = cand.map((c) => c.length + 1) as Grid["dims"];
  const notCaught = untouchedCounts(failKeys, profile.catchable.count, cand, dims);
  const notHalted = untouchedCounts(healthyKeys, profile.haltable.count, cand, dims);
  const caught = new Int32Array(notCaught.length);
  const halted = new Int32Array(notHalted.length);
  for (let i = 0; i < caught.length; i++) {
    caught[i] = profile.catchable.count - notCaught[i]!;
    halted[i] = profile.haltable.count - notHalted[i]!;
  }
  return { cand, dims, caught, halted };
}

/** The floor a cell stands for, as loose as it can be while stopping what the cell stops. */
function cellFloor(grid: Grid, cell: Cell): CompressionPolicy {
  const [a, b, c] = cell;
  return {
    max_pass_number: a === 0 ? Number.MAX_SAFE_INTEGER : -grid.cand[PASS][a - 1]! - 1,
    min_size_bytes: b === 0 ? 0 : grid.cand[SIZE][b - 1]! + 1,
    min_semantic_density: c === 0 ? 0 : nextUp(grid.cand[DENSITY][c - 1]!),
  };
}

function currentCell(grid: Grid, current: CompressionPolicy): Cell {
  const at = (axis: AxisId) => lowerBound(grid.cand[axis]!, thresholdKey(current, axis));
  return [at(PASS), at(SIZE), at(DENSITY)];
}

/**
 * Among the cells `isBest` accepts, the ones no other accepted cell is looser than (or
 * equal to) on every axis: a looser floor halts the same chains later, so keeps more.
 */
function loosestOf(grid: Grid, isBest: (cell: number) => boolean): Cell[] {
  const [A, B, C] = grid.dims;
  const reached = new Uint8Array(A * B * C);
  const out: Cell[] = [];
  for (let a = 0; a < A; a++)
    for (let b = 0; b < B; b++)
      for (let c = 0; c < C; c++) {
        const i = cellIndex(grid, a, b, c);
        const before =
          (a > 0 && reached[i - B * C]! === 1) || (b > 0 && reached[i - C]! === 1) || (c > 0 && reached[i - 1]! === 1);
        const best = isBest(i);
        if (best && !before) out.push([a, b, c]);
        reached[i] = best || before ? 1 : 0;
      }
  return out;
}

/** Recorded passes (numbered 2 or more) a floor would answer with something other than "proceed". */
function passesStopped(profile: ClassProfile, floor: CompressionPolicy): number {
  const { passNumber, sizeBytes, density } = profile.cols;
  let count = 0;
  for (let i = 0; i < passNumber.length; i++) {
    if (
      passNumber[i]! >= 2 &&
      (passNumber[i]! > floor.max_pass_number ||
        sizeBytes[i]! < floor.min_size_bytes ||
        density[i]! < floor.min_semantic_density)
    ) {
      count++;
    }
  }
  return count;
}

/**
 * Among equally good cells: the most compression kept; then the floor in force if it is one
 * of them; then the floor that would have stopped the fewest recorded passes (the most
 * specific: it fires where failures were, not everywhere); then the one nearest the floor
 * in force, counted in candidate steps.
 */
function pickOption(
  profile: ClassProfile,
  grid: Grid,
  isBest: (cell: number) => boolean,
  home: Cell,
  finalists: number,
): Cell {
  const distance = (cell: Cell) =>
    Math.abs(cell[0]! - home[0]!) + Math.abs(cell[1]! - home[1]!) + Math.abs(cell[2]! - home[2]!);
  const byDistance = (x: Cell, y: Cell) => distance(x) - distance(y) || x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  const scored = loosestOf(grid, isBest)
    .sort(byDistance)
    .slice(0, finalists)
    .map((cell) => ({ cell, kept: outcomeOf(profile, cellFloor(grid, cell)).compression_kept }));
  const mostKept = Math.max(...scored.map((s) => s.kept));
  const tied = scored.filter((s) => s.kept === mostKept).map((s) => s.cell);
  if (tied.length === 1 || distance(tied[0]!) === 0) return tied[0]!;
  const stopped = tied.map((cell) => ({ cell, stopped: passesStopped(profile, cellFloor(grid, cell)) }));
  stopped.sort((x, y) => x.stopped - y.stopped || byDistance(x.cell, y.cell));
  return stopped[0]!.cell;
}

/**
 * For each lower key on each axis, the next recorded key above it that could change any
 * outcome: a failing chain's aggregate or any pass a healthy chain could be halted at. One
 * scan for all the axes and options.
 */
function nextRelevantKeys(profile: ClassProfile, los: readonly number[][]): number[][] {
  const n = los[PASS]!.length;
  // Axis-major: lo[axis * n + o].
  const lo = Float64Array.from(los.flat());
  const hi = new Float64Array(lo.length).fill(Number.POSITIVE_INFINITY);
  const consider = (axis: number, k: number) => {
    for (let at = axis * n; at < (axis + 1) * n; at++) if (k > lo[at]! && k < hi[at]!) hi[at] = k;
  };
  const { catchable, haltable } = profile;
  const { passNumber, sizeBytes, density } = profile.cols;
  for (let i = 0; i < catchable.count; i++) {
    consider(PASS, -catchable.maxPass[i]!);
    consider(SIZE, catchable.minSize[i]!);
    consider(DENSITY, catchable.minDensity[i]!);
  }
  for (let j = 0; j < haltable.count; j++) {
    for (let at = haltable.zoneStart[j]!; at < haltable.zoneEnd[j]!; at++) {
      consider(PASS, -passNumber[at]!);
      consider(SIZE, sizeBytes[at]!);
      consider(DENSITY, density[at]!);
    }
  }
  return [PASS, SIZE, DENSITY].map((axis) => Array.from(hi.subarray(axis * n, (axis + 1) * n)));
}

/**
 * The value to show on one axis for a cell stopping keys <= lo (none when lo is -Infinity),
 * given hi, the next recorded key: every threshold in (lo, hi] does the same on the record.
 */
function presentAxis(axis: AxisId, lo: number, hi: number, current: CompressionPolicy): number {
  // A side the recorded values leave open is closed at the next round step past the
  // nearest recorded value, so "nothing above 0.5 was seen" does not become a floor of 1.
  if (axis === DENSITY) {
    const now = current.min_semantic_density;
    if (!Number.isFinite(lo)) return now <= hi ? now : roundestDecimal(0, Math.min(hi, 1), true);
    const to = Number.isFinite(hi) ? Math.min(hi, 1) : Math.min(1, (Math.floor(lo * 10) + 1) / 10);
    return now > lo && now <= (Number.isFinite(hi) ? to : 1) ? now : roundestDecimal(lo, to, false);
  }
  if (axis === SIZE) {
    const now = current.min_size_bytes;
    if (!Number.isFinite(lo)) return now <= hi ? now : roundestInteger(0, Number.isFinite(hi) ? hi : 0);
    if (now > lo && now <= hi) return now;
    const step = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(lo, 1))) - 1);
    return roundestInteger(lo + 1, Number.isFinite(hi) ? hi : (Math.floor(lo / step) + 1) * step);
  }
  // Pass axis: the guard stops pass numbers > max, i.e. keys -pn < -max, so max is in [-hi, -lo - 1].
  const now = current.max_pass_number;
  if (!Number.isFinite(lo)) return Math.max(now, -hi);
  const to = -lo - 1;
  if (!Number.isFinite(hi)) return Math.min(now, to);
  return now >= -hi && now <= to ? now : roundestInteger(-hi, to);
}

function presentFloors(
  profile: ClassProfile,
  grid: Grid,
  cells: Cell[],
  current: CompressionPolicy,
): CompressionPolicy[] {
  const axes = [PASS, SIZE, DENSITY] as const;
  const los = axes.map((axis) =>
    cells.map((cell) =>
      cell[axis] === 0 ? Number.NEGATIVE_INFINITY : (grid.cand[axis][cell[axis] - 1] ?? Number.NEGATIVE_INFINITY),
    ),
  );
  const his = nextRelevantKeys(profile, los);
  const [passes, sizes, densities] = axes.map((axis) =>
    los[axis]!.map((lo, o) => presentAxis(axis, lo, his[axis]?.[o] ?? Number.POSITIVE_INFINITY, current)),
  ) as [number[], number[], number[]];
  return cells.map((_, o) => ({
    min_size_bytes: sizes[o] ?? current.min_size_bytes,
    min_semantic_density: densities[o] ?? current.min_semantic_density,
    max_pass_number: passes[o] ?? current.max_pass_number,
  }));
}

/**
 * Recommends three floors for a content class from its recorded chains:
 * - strict: catches every failure any floor can catch; among those floors, halts the fewest
 *   healthy chains early;
 * - lenient: halts no healthy chain early; among those floors, catches the most failures;
 * - balanced: maximises failures caught minus healthy chains halted early (a missed failure
 *   and a needlessly halted chain weigh the same).
 * Ties go to the floor keeping the most compression, then to the one closest to the floor
 * in force, so a floor that is already best is recommended unchanged.
 */
export function recommendFloors(
  cols: ChainColumns,
  current: CompressionPolicy,
  limits: SearchLimits = {},
): RecommendationResult {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  const profile = profileChains(cols);
  if (profile.chains < lim.minChains) {
    return { ok: false, reason: "not_enough_data", chains: profile.chains, minimum: lim.minChains };
  }
  const grid = buildGrid(profile, current, lim);
  const home = currentCell(grid, current);
  const cellCount = grid.caught.length;

  let mostCaught = 0;
  for (let i = 0; i < cellCount; i++) mostCaught = Math.max(mostCaught, grid.caught[i]!);
  let fewestHalted = Number.POSITIVE_INFINITY;
  let mostCaughtUnhalted = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < cellCount; i++) {
    if (grid.caught[i]! === mostCaught) fewestHalted = Math.min(fewestHalted, grid.halted[i]!);
    if (grid.halted[i]! === 0) mostCaughtUnhalted = Math.max(mostCaughtUnhalted, grid.caught[i]!);
    bestScore = Math.max(bestScore, grid.caught[i]! - grid.halted[i]!);
  }
  const rules: Record<OptionName, (i: number) => boolean> = {
    strict: (i) => grid.caught[i]! === mostCaught && grid.halted[i]! === fewestHalted,
    balanced: (i) => grid.caught[i]! - grid.halted[i]! === bestScore,
    lenient: (i) => grid.halted[i]! === 0 && grid.caught[i]! === mostCaughtUnhalted,
  };
  const picked = OPTION_NAMES.map((name) => pickOption(profile, grid, rules[name]!, home, lim.finalists));
  const policies = presentFloors(profile, grid, picked, current);
  const options = OPTION_NAMES.map(
    (name, o): FloorOption => ({ name, policy: policies[o]!, ...outcomeOf(profile, policies[o]!) }),
  );
  return {
    ok: true,
    recommendation: {
      based_on: {
        chains: profile.chains,
        healthy: profile.healthy,
        guarded: profile.guarded,
        failures: profile.failures,
        passes: profile.passes,
      },
      current: outcomeOf(profile, current),
      options,
    },
  };
}
