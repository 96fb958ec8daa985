// The overview's time ranges and the shaping of collapse rates for its chart.
import type { Verdict } from "../guard/guard";
import type { ChainStatusFilter } from "../schemas/chains";

export { DEFAULT_RANGE, RANGE_KEYS, RANGES, type RangeKey, rangeStart } from "./ranges";

/** A bucket origin on a round boundary at or before `since` (whole hours, UTC midnights), so axis ticks read cleanly. */
export function alignOrigin(since: Date, strideSeconds: number): Date {
  const stride = strideSeconds * 1000;
  return new Date(Math.floor(since.getTime() / stride) * stride);
}

const WIDEST_STRIDE = 365 * 86_400;
const STRIDES = [
  3_600,
  3 * 3_600,
  6 * 3_600,
  12 * 3_600,
  86_400,
  2 * 86_400,
  7 * 86_400,
  14 * 86_400,
  30 * 86_400,
  91 * 86_400,
  WIDEST_STRIDE,
];
export const MAX_BUCKETS = 36;

/** The narrowest round bucket width that cuts the span into at most MAX_BUCKETS buckets. */
export function chooseStride(spanSeconds: number): number {
  return STRIDES.find((s) => Math.ceil(spanSeconds / s) <= MAX_BUCKETS) ?? WIDEST_STRIDE;
}

export interface CollapseRateRow {
  /** Bucket start, RFC 3339. */
  bucket: string;
  content_class: string;
  started: number;
  collapsed: number;
}

export interface CollapseRatePoint {
  /** Bucket start in epoch milliseconds. */
  t: number;
  /** Share of the chains started in the bucket that collapsed, per class; null when none started. */
  rate: Record<string, number | null>;
  started: Record<string, number>;
  collapsed: Record<string, number>;
}

export const OTHER_CLASSES = "other classes";

/**
 * One point per bucket from `origin` up to `end` (empty buckets included, so the axis spans
 * the whole range), one series per class. Classes beyond the `maxClasses` busiest are summed
 * into one "other classes" series so that the chart stays readable.
 */
export function pivotCollapseRates(
  rows: readonly CollapseRateRow[],
  origin: Date,
  end: Date,
  strideSeconds: number,
  maxClasses = 6,
): { classes: string[]; points: CollapseRatePoint[] } {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.content_class, (totals.get(r.content_class) ?? 0) + r.started);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([c]) => c);
  const kept = ranked.length > maxClasses ? ranked.slice(0, maxClasses - 1) : ranked;
  const classes = ranked.length > maxClasses ? [...kept, OTHER_CLASSES] : kept;
  const seriesOf = (c: string) => (kept.includes(c) ? c : OTHER_CLASSES);

  const stride = strideSeconds * 1000;
  const points: CollapseRatePoint[] = [];
  const index = new Map<number, CollapseRatePoint>();
  for (let t = origin.getTime(); t < end.getTime(); t += stride) {
    const point: CollapseRatePoint = { t, rate: {}, started: {}, collapsed: {} };
    for (const c of classes) {
      point.started[c] = 0;
      point.collapsed[c] = 0;
    }
    points.push(point);
    index.set(t, point);
  }
  for (const r of rows) {
    const point = index.get(Date.parse(r.bucket));
    if (!point) continue;
    const c = seriesOf(r.content_class);
    point.started[c] = (point.started[c] ?? 0) + r.started;
    point.collapsed[c] = (point.collapsed[c] ?? 0) + r.collapsed;
  }
  for (const point of points) {
    for (const c of classes) {
      const started = point.started[c] ?? 0;
      point.rate[c] = started > 0 ? (point.collapsed[c] ?? 0) / started : null;
    }
  }
  return { classes, points };
}
/**
 * The headline figures. Every one but `passes` counts chains with activity in the range, so
 * each opens the chains list filtered to exactly what it counts (OVERVIEW_FIGURE_STATUS).
 */
export interface OverviewFigures {
  /** Chains with any activity in the range. */
  chains: number;
  /** Receipts received in the range (not a list: the chains they belong to are `chains`). */
  passes: number;
  /** Of those chains: collapsed (content went past a floor). */
  chains_collapsed: number;
  /** Of those chains: guarded (the guard reached a floor and the agent obeyed through a boundary). */
  chains_guarded: number;
  chains_floor_breached: number;
  chains_client_mismatch: number;
  /** Of those chains: a pass whose measured density (or parseability, schema) changes the guard's verdict on its claims. */
  chains_measurement_mismatch: number;
  chains_broken_integrity: number;
  chains_continued_after_halt: number;
  chains_restore_not_honoured: number;
}

/** The chains-list status filter each chain figure counts (null: every chain). */
export const OVERVIEW_FIGURE_STATUS = {
  chains: null,
  chains_collapsed: "collapsed",
  chains_floor_breached: "floor_breached",
  chains_client_mismatch: "client_mismatch",
  chains_broken_integrity: "broken_integrity",
  chains_continued_after_halt: "continued_after_halt",
  chains_restore_not_honoured: "restore_not_honoured",
  // Last: the roll-up tables' columns follow this order, and these were added last.
  chains_measurement_mismatch: "measurement_mismatch",
  chains_guarded: "guarded",
} as const satisfies Record<Exclude<keyof OverviewFigures, "passes">, ChainStatusFilter | null>;

export interface RecentCollapse {
  /**
   * `collapsed`: content went past the floor (listed first); `unanswered`: the guard reached
   * a floor and no boundary answered it, with nothing after it yet. Guarded chains are not
   * listed: the overview counts them apart.
   */
  outcome: "collapsed" | "unanswered";
  chain_id: string;
  content_class: string;
  pass_id: string;
  pass_number: number;
  verdict: Verdict;
  directive: string;
  created_at: string;
  /**
   * Where the chain collapsed on a measured verdict (density_source measured) that the claims
   * did not reach: the measured and claimed densities. The directive is the reference's, on the claims.
   */
  measured?: { density: number; claimed: number } | null;
}
