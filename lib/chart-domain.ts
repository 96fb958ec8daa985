// Axis math for the chain charts. Sizes span orders of magnitude (96 KB down to a few
// hundred bytes) while the floor sits near the bottom, so the size axis is logarithmic.

/** A log axis cannot show 0 bytes; the chart draws it at 1 byte (tooltips show the true value). */
export const LOG_AXIS_MIN = 1;

/** [min, max] for a log axis holding every value and every floor, padded to whole ticks. */
export function logDomain(values: readonly number[]): [number, number] {
  const positive = values.map((v) => Math.max(v, LOG_AXIS_MIN));
  if (positive.length === 0) return [LOG_AXIS_MIN, 10];
  const lo = Math.min(...positive);
  const hi = Math.max(...positive);
  const min = 10 ** Math.floor(Math.log10(lo));
  let max = 10 ** Math.ceil(Math.log10(hi));
  if (max <= min) max = min * 10;
  return [min, max];
}

/** Ticks at 1, 2 and 5 times each power of ten inside the domain; fewer when the range is wide. */
export function logTicks([min, max]: readonly [number, number]): number[] {
  const decades = Math.round(Math.log10(max / min));
  const steps = decades <= 3 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let p = min; p <= max; p *= 10) {
    for (const s of steps) {
      const t = p * s;
      if (t >= min && t <= max) ticks.push(t);
    }
  }
  return ticks;
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** 2048 -> "2 KiB", 1536 -> "1.5 KiB", 200 -> "200 B". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text =
    unit === 0 || value >= 100
      ? Math.round(value).toString()
      : value.toFixed(value >= 10 ? 1 : 2).replace(/\.?0+$/, "");
  return `${text} ${UNITS[unit]}`;
}

/** Axis labels for round decimal byte ticks: 1000 -> "1 kB" reads better than "0.98 KiB". */
export function formatByteTick(bytes: number): string {
  if (bytes >= 1e9) return `${bytes / 1e9} GB`;
  if (bytes >= 1e6) return `${bytes / 1e6} MB`;
  if (bytes >= 1e3) return `${bytes / 1e3} kB`;
  return `${bytes} B`;
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
