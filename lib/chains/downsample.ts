// Downsampling of a chain's curves for the chart. The database does the work
// (db/queries/chains.ts, getChainSeries) so that a chain of 100,000 passes never leaves
// Postgres in full; this module is the specification it follows, and the same rules mark
// the rows of the passes table.

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
  policy_version: number;
  content_class: string;
  /** The floor of the policy version that judged this pass. */
  floor_size: number;
  floor_density: number;
}

/**
 * The flags of `cur` given the pass before it in chain order (null for the first pass).
 * Mirrors the SQL in getChainSeries and the integrity rules of lib/chain-integrity.ts.
 */
export function passFlags(
  prev: FlagInput | null,
  cur: FlagInput,
  options: { isLast?: boolean; isBoundary?: boolean } = {},
): number {
  let flags = 0;
  if (options.isLast) flags |= PASS_FLAG.last;
  if (options.isBoundary) flags |= PASS_FLAG.boundary;
  if (cur.client_mismatch) flags |= PASS_FLAG.clientMismatch;
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
  const hashBreak =
    cur.pass_number === prev.pass_number + 1 &&
    cur.input_content_hash !== null &&
    cur.input_content_hash !== prev.current_content_hash;
  if (repeated || gap || hashBreak) flags |= PASS_FLAG.integrity;
  return flags;
}

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
    keep.add(list[0].key);
    keep.add(list[list.length - 1].key);
    const curves = list[0].values.length;
    for (let c = 0; c < curves; c++) {
      // Ties: the minimum goes to the earliest sample and the maximum to the latest, as
      // `min(array[value, id])` and `max(array[value, id])` do in SQL.
      let min = list[0];
      let max = list[0];
      for (const s of list) {
        if (s.values[c] < min.values[c]) min = s;
        if (s.values[c] >= max.values[c]) max = s;
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
