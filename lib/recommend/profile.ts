// biome-ignore-all lint/style/noNonNullAssertion: typed-array reads at indices the loops keep in bounds; noUncheckedIndexedAccess cannot see that.
// What a floor would have done to each recorded chain, decided from a few numbers per chain
// instead of a replay of every pass.
//
// The guard (lib/guard.ts) answers something other than SAFE_TO_COMPRESS or
// NO_RECURSIVE_COMPRESSION exactly for a pass numbered 2 or more that is past the maximum
// pass number, unparseable, schema-invalid, under the minimum size or under the minimum
// density. Every pass before a chain's failure is parseable and schema-valid (that is what
// makes the failure the first), and a healthy chain has no broken pass at all, so for the
// passes that matter the guard stops at the first one with pass_number > max, size < min
// or density < min. Hence a floor stops a chain before pass k exactly when, over the passes
// numbered 2..k-1, the largest pass number exceeds its maximum or the least size or density
// is under its minimum. test/unit/recommend-equivalence.test.ts checks this against a replay
// through the guard itself on random chains and floors.
import type { CompressionPolicy } from "@/lib/guard/guard";
import { type ChainColumns, failureOf, guardedEndOf } from "./chains";

export interface Outcome {
  failures_caught: number;
  failures_missed: number;
  /** Healthy and guarded chains the floor would have stopped before their end (a guarded chain's end: its floor). */
  healthy_halted_early: number;
  /** Over healthy and guarded chains, bytes saved up to the halt (or the end) / bytes saved as recorded; 1 when none were saved. */
  compression_kept: number;
}

/** Largest pass number, least size and least density over a run of passes. */
interface Aggregates {
  maxPass: Float64Array;
  minSize: Float64Array;
  minDensity: Float64Array;
}

export interface ClassProfile {
  cols: ChainColumns;
  chains: number;
  passes: number;
  healthy: number;
  /**
   * Guarded chains: saves, not failures. Each counts like a healthy chain that ended at the
   * floor the guard stopped it at: a floor that stops it before that pass halts it early.
   */
  guarded: number;
  failures: number;
  /** Failing chains with a pass the guard could stop at before the failure: over passes 2..k-1. */
  catchable: Aggregates & { count: number };
  /**
   * Healthy chains with a pass the guard could stop at before their last: over passes
   * 2..last-1 (for a guarded chain, the passes before its floor).
   */
  haltable: Aggregates & {
    count: number;
    /** Those passes, as [zoneStart, zoneEnd) into cols. */
    zoneStart: Int32Array;
    zoneEnd: Int32Array;
    firstSize: Float64Array;
    recordedSaving: Float64Array;
  };
  /** Bytes saved as recorded, over every healthy and guarded chain (a guarded one up to the pass before its floor). */
  recordedSaving: number;
}

/** Bytes a chain saved by the pass at `at`: from its first pass, never negative, never more than it saved in all. */
export function savedUpTo(firstSize: number, sizeAt: number, recorded: number): number {
  return Math.min(Math.max(firstSize - sizeAt, 0), recorded);
}

export function profileChains(cols: ChainColumns): ClassProfile {
  const n = cols.chainIds.length;
  const agg = (size: number): Aggregates => ({
    maxPass: new Float64Array(size),
    minSize: new Float64Array(size),
    minDensity: new Float64Array(size),
  });
  const catchable = { ...agg(n), count: 0 };
  const haltable = {
    ...agg(n),
    count: 0,
    zoneStart: new Int32Array(n),
    zoneEnd: new Int32Array(n),
    firstSize: new Float64Array(n),
    recordedSaving: new Float64Array(n),
  };
  let healthy = 0;
  let guarded = 0;
  let failures = 0;
  let recordedSaving = 0;
  const { offsets, passNumber, sizeBytes, density } = cols;

  for (let c = 0; c < n; c++) {
    const start = offsets[c]!;
    const end = offsets[c + 1]!;
    if (start === end) continue;
    const failure = failureOf(cols, c);
    const guardedEnd = guardedEndOf(cols, c);
    // The guard never stops at a pass numbered 0 or 1, so the zone starts past them.
    let zoneStart = start;
    while (zoneStart < end && passNumber[zoneStart]! < 2) zoneStart++;
    const limit = failure ?? guardedEnd ?? passNumber[end - 1]!;
    let zoneEnd = zoneStart;
    let maxPass = 0;
    let minSize = Number.POSITIVE_INFINITY;
    let minDensity = Number.POSITIVE_INFINITY;
    while (zoneEnd < end && passNumber[zoneEnd]! < limit) {
      maxPass = passNumber[zoneEnd]!;
      if (sizeBytes[zoneEnd]! < minSize) minSize = sizeBytes[zoneEnd]!;
      if (density[zoneEnd]! < minDensity) minDensity = density[zoneEnd]!;
      zoneEnd++;
    }
    const target = failure === null ? haltable : catchable;
    if (failure === null) {
      if (guardedEnd !== null) guarded++;
      else healthy++;
      // What the recording kept: the last pass, or, for a guarded chain, the last pass before its end.
      let kept = end - 1;
      if (guardedEnd !== null) {
        kept = start;
        while (kept + 1 < end && passNumber[kept + 1]! < limit) kept++;
      }
      const saving = Math.max(sizeBytes[start]! - sizeBytes[kept]!, 0);
      recordedSaving += saving;
      if (zoneEnd > zoneStart) {
        haltable.zoneStart[haltable.count] = zoneStart;
        haltable.zoneEnd[haltable.count] = zoneEnd;
        haltable.firstSize[haltable.count] = sizeBytes[start]!;
        haltable.recordedSaving[haltable.count] = saving;
      }
    } else {
      failures++;
    }
    if (zoneEnd > zoneStart) {
      target.maxPass[target.count] = maxPass;
      target.minSize[target.count] = minSize;
      target.minDensity[target.count] = minDensity;
      target.count++;
    }
  }
  return {
    cols,
    chains: n,
    passes: offsets[n]!,
    healthy,
    guarded,
    failures,
    catchable,
    haltable,
    recordedSaving,
  };
}

/** What `floor` would have done to the profiled chains. */
export function outcomeOf(profile: ClassProfile, floor: CompressionPolicy): Outcome {
  const { min_size_bytes: minSize, min_semantic_density: minDensity, max_pass_number: maxPass } = floor;
  const { catchable, haltable } = profile;
  let caught = 0;
  for (let i = 0; i < catchable.count; i++) {
    if (catchable.maxPass[i]! > maxPass || catchable.minSize[i]! < minSize || catchable.minDensity[i]! < minDensity) {
      caught++;
    }
  }
  const { passNumber, sizeBytes, density } = profile.cols;
  let halted = 0;
  let lost = 0;
  for (let j = 0; j < haltable.count; j++) {
    if (haltable.maxPass[j]! > maxPass || haltable.minSize[j]! < minSize || haltable.minDensity[j]! < minDensity) {
      halted++;
      let at = haltable.zoneStart[j]!;
      while (!(passNumber[at]! > maxPass || sizeBytes[at]! < minSize || density[at]! < minDensity)) at++;
      const recorded = haltable.recordedSaving[j]!;
      lost += recorded - savedUpTo(haltable.firstSize[j]!, sizeBytes[at]!, recorded);
    }
  }
  return {
    failures_caught: caught,
    failures_missed: profile.failures - caught,
    healthy_halted_early: halted,
    compression_kept: profile.recordedSaving === 0 ? 1 : (profile.recordedSaving - lost) / profile.recordedSaving,
  };
}
