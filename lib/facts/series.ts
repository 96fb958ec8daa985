// The chain chart's "facts surviving" line (docs/facts.md): at each measured pass, the share of
// the source's facts the pass states, from the measurement stored with it. Pure, for the page.

export interface FactPoint {
  pass_id: string;
  pass_number: number;
  /** Facts of the source the pass states, that an original its markers name states, all of them. */
  retained: number;
  recoverable: number;
  in_source: number;
  /** retained / in_source. */
  surviving: number;
}

/**
 * Points of the passes whose measurement counted facts (a source with facts), in pass order;
 * past `max`, the first, the last and each stretch's lowest point, so a loss never vanishes
 * from a long chain's line.
 */
export function factPoints(
  passes: readonly { pass_id: string; pass_number: number; retained: number; recoverable: number; in_source: number }[],
  max = 1000,
): FactPoint[] {
  const points = passes
    .filter((p) => p.in_source > 0)
    .map((p) => ({ ...p, surviving: Math.min(1, p.retained / p.in_source) }));
  if (points.length <= max) return points;
  const kept: FactPoint[] = [points[0] as FactPoint];
  const stride = (points.length - 2) / (max - 2);
  for (let k = 0; k < max - 2; k++) {
    const stretch = points.slice(1 + Math.floor(k * stride), 1 + Math.floor((k + 1) * stride));
    const lowest = stretch.reduce<FactPoint | null>((low, p) => (!low || p.surviving < low.surviving ? p : low), null);
    if (lowest) kept.push(lowest);
  }
  kept.push(points.at(-1) as FactPoint);
  return kept;
}
