// biome-ignore-all lint/style/noNonNullAssertion: typed-array reads at indices the loops keep in bounds; noUncheckedIndexedAccess cannot see that.
// A floor value is read by people: within the range of values that all give the same outcome
// on the recorded chains, pick the one with the fewest digits, and among those the one
// nearest the middle of the range, so it keeps a margin on both sides.

/** The roundest decimal x with lo < x <= hi (lo <= x when `loInclusive`), nearest the middle. */
export function roundestDecimal(lo: number, hi: number, loInclusive: boolean): number {
  const aboveLo = (x: number) => (loInclusive ? x >= lo : x > lo);
  if (!(hi > lo || (loInclusive && hi === lo))) return hi;
  const mid = (lo + hi) / 2;
  const start = hi > 0 ? Math.max(0, -Math.floor(Math.log10(hi))) : 0;
  for (let p = start; p <= 15; p++) {
    const scale = 10 ** p;
    let kLo = Math.ceil(lo * scale) - 1;
    while (!aboveLo(kLo / scale)) kLo++;
    let kHi = Math.floor(hi * scale) + 1;
    while (kHi / scale > hi) kHi--;
    if (kLo <= kHi) return Math.min(Math.max(Math.round(mid * scale), kLo), kHi) / scale;
  }
  return hi;
}

/** The roundest integer in [lo, hi], nearest the middle. */
export function roundestInteger(lo: number, hi: number): number {
  if (hi <= lo) return lo;
  const mid = (lo + hi) / 2;
  for (let step = 10 ** Math.floor(Math.log10(Math.max(hi, 1))); step >= 1; step /= 10) {
    const kLo = Math.ceil(lo / step);
    const kHi = Math.floor(hi / step);
    if (kLo <= kHi) return Math.min(Math.max(Math.round(mid / step), kLo), kHi) * step;
  }
  return lo;
}
