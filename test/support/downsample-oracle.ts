// The test oracle for the chart's downsampling: the min/max-bucket selection written plainly
// in memory. Production selects in SQL (db/queries/chain-series.ts); test/integration
// checks that the SQL keeps exactly what this keeps, and test/unit pins this down.

import { at } from "./at";

/**
 * The bucket of a pass number: equal-width buckets over [lo, hi]. The SQL computes
 * `floor((pass_number - lo) * buckets / (hi - lo + 1))`, which is this.
 */
export function bucketIndex(passNumber: number, lo: number, hi: number, buckets: number): number {
  return Math.floor(((passNumber - lo) * buckets) / (hi - lo + 1));
}

export interface Sample {
  /** Unique and increasing in chain order (the row id breaks pass-number ties). */
  key: number;
  passNumber: number;
  values: readonly number[];
  flags: number;
}

/**
 * The min/max-bucket selection on samples already in memory: per bucket the first and last
 * sample and the one holding each curve's minimum and maximum, plus every flagged sample
 * (the earliest `flaggedCap` of them). Returns the keys to keep in chain order.
 */
export function selectSamples(
  samples: readonly Sample[],
  options: { buckets: number; fullDetailUpTo: number; flaggedCap: number },
): number[] {
  if (samples.length <= options.fullDetailUpTo) return samples.map((s) => s.key);
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of samples) {
    lo = Math.min(lo, s.passNumber);
    hi = Math.max(hi, s.passNumber);
  }
  const keep = new Set<number>();
  const byBucket = new Map<number, Sample[]>();
  for (const s of samples) {
    const b = bucketIndex(s.passNumber, lo, hi, options.buckets);
    const list = byBucket.get(b);
    if (list) list.push(s);
    else byBucket.set(b, [s]);
  }
  for (const list of byBucket.values()) {
    const first = at(list, 0);
    keep.add(first.key);
    keep.add(at(list, list.length - 1).key);
    for (let c = 0; c < first.values.length; c++) {
      // Ties: the minimum goes to the earliest sample and the maximum to the latest, as
      // `min(array[value, id])` and `max(array[value, id])` do in SQL.
      const value = (s: Sample) => at(s.values, c);
      let min = first;
      let max = first;
      for (const s of list) {
        if (value(s) < value(min)) min = s;
        if (value(s) >= value(max)) max = s;
      }
      keep.add(min.key);
      keep.add(max.key);
    }
  }
  let flagged = 0;
  for (const s of samples) {
    if (s.flags === 0 || flagged >= options.flaggedCap) continue;
    keep.add(s.key);
    flagged++;
  }
  return samples.filter((s) => keep.has(s.key)).map((s) => s.key);
}
