// The time ranges of the overview and of the chains list's activity filter.

export const RANGES = {
  "24h": { label: "24 hours", seconds: 86_400 },
  "7d": { label: "7 days", seconds: 7 * 86_400 },
  "30d": { label: "30 days", seconds: 30 * 86_400 },
  "90d": { label: "90 days", seconds: 90 * 86_400 },
  all: { label: "All time", seconds: null },
} as const;
export type RangeKey = keyof typeof RANGES;
export const RANGE_KEYS = Object.keys(RANGES) as RangeKey[];
export const DEFAULT_RANGE: RangeKey = "7d";

/** Where a range starts; "all" starts at the first activity (null: nothing recorded yet). */
export function rangeStart(range: RangeKey, now: Date, firstActivity: Date | null): Date | null {
  const seconds = RANGES[range].seconds;
  return seconds === null ? firstActivity : new Date(now.getTime() - seconds * 1000);
}
