// Axis math for the chain charts. Sizes span orders of magnitude (96 KiB down to a few
// hundred bytes) while the floor sits near the bottom, so the size axis is logarithmic.

/** A log axis cannot show 0 bytes; the chart draws it at 1 byte (tooltips show the true value). */
export const LOG_AXIS_MIN = 1;

// The size axis is labelled in binary units like every other size on the dashboard, so its
// ticks sit on powers of two: 1 KiB, 4 KiB, 16 KiB read cleanly where 1000 B would read "0.98 KiB".
const log2 = Math.log2;

/** Tick spacing in doublings: every power of two on a narrow axis, sparser on a wide one. */
function tickStep(lo: number, hi: number): number {
  const doublings = log2(hi) - log2(lo);
  return [1, 2, 5, 10].find((step) => doublings / step <= 8) ?? 10;
}

/** [min, max] for a log axis holding every value and every floor, padded out to whole ticks. */
export function logDomain(values: readonly number[]): [number, number] {
  const positive = values.map((v) => Math.max(v, LOG_AXIS_MIN));
  if (positive.length === 0) return [LOG_AXIS_MIN, 16];
  const lo = 2 ** Math.floor(log2(Math.min(...positive)));
  let hi = 2 ** Math.ceil(log2(Math.max(...positive)));
  if (hi <= lo) hi = lo * 2;
  const step = tickStep(lo, hi);
  const min = 2 ** (Math.floor(log2(lo) / step) * step);
  const max = 2 ** (Math.ceil(log2(hi) / step) * step);
  return [min, max];
}

/** Ticks on the powers of two inside the domain, spaced so that there are at most about nine. */
export function logTicks([min, max]: readonly [number, number]): number[] {
  const step = tickStep(min, max);
  const ticks: number[] = [];
  for (let e = Math.ceil(log2(min) / step) * step; 2 ** e <= max; e += step) ticks.push(2 ** e);
  return ticks;
}

/**
 * The pass-number axis: the chain's passes, and the max_pass_number limits too when they lie
 * close enough that drawing them does not squash the curves (within twice the chain's span).
 * Returns the domain and the limits that fit in it.
 */
export function passDomain(
  first: number,
  last: number,
  limits: readonly number[],
): { domain: [number, number]; limits: number[] } {
  const span = Math.max(last - first, 1);
  const drawable = [...new Set(limits)].filter((l) => l >= first && l + 1 <= last + 2 * span).sort((a, b) => a - b);
  const hi = Math.max(last, ...drawable.map((l) => l + 1));
  return { domain: [first, hi === first ? first + 1 : hi], limits: drawable };
}

/**
 * A colour slot (1..slots) per content class that depends on the class's name, not on its
 * place in a list: the same class keeps its colour across ranges, pages and colour schemes.
 * Names hash to a preferred slot; when two classes on one chart want the same slot, the one
 * first in name order keeps it and the other takes the next free one.
 */
export function classColorSlots(classes: readonly string[], slots = 6): Record<string, number> {
  const taken = new Set<number>();
  const result: Record<string, number> = {};
  for (const name of [...new Set(classes)].sort()) {
    let hash = 2166136261;
    for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619) >>> 0;
    let slot = hash % slots;
    for (let tries = 0; tries < slots && taken.has(slot); tries++) slot = (slot + 1) % slots;
    taken.add(slot);
    result[name] = slot + 1;
  }
  return result;
}

/** A break in a pass curve: drawn as a point with no value, so the line stops and restarts. */
export interface GapRow {
  pass_number: number;
  gap: true;
}

/**
 * The points with a gap row before each pass that follows missing passes, so that a line
 * never runs straight across passes that never arrived. `gapsBefore` are the pass numbers
 * right after a gap; a gap before the first drawn point draws nothing and is left out.
 */
export function withGaps<T extends { pass_number: number }>(
  points: readonly T[],
  gapsBefore: readonly number[],
): (T | GapRow)[] {
  const first = points[0]?.pass_number;
  const gaps = [...new Set(gapsBefore)].filter((n) => first !== undefined && n > first);
  const rows: (T | GapRow)[] = [...points, ...gaps.map((n): GapRow => ({ pass_number: n - 0.5, gap: true }))];
  return rows.sort((a, b) => a.pass_number - b.pass_number || ("gap" in a ? -1 : 1));
}

export const isGap = (row: object): row is GapRow => "gap" in row;

/** The floor span that judged a pass: the last one starting at or before it. */
export function floorAt<F extends { from: number }>(floors: readonly F[], passNumber: number): F | undefined {
  let found: F | undefined;
  for (const f of floors) if (f.from <= passNumber) found = f;
  return found ?? floors[0];
}

/** Draw a pass chart with a zoom brush when it holds more points than read comfortably at once. */
export const BRUSH_MIN_POINTS = 60;

/** Below this many periods with data, the collapse rate is drawn as labelled bars rather than lines. */
export const FEW_PERIODS = 12;
