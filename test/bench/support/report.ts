/** Rates, ratios and tables printed the same way by every bench. */
import { at } from "../../support/at";

export function formatRate(perSecond: number): string {
  return Math.round(perSecond).toLocaleString("en-US");
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? at(sorted, mid) : (at(sorted, mid - 1) + at(sorted, mid)) / 2;
}

export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(at(widths, i)) : c.padStart(at(widths, i)))).join("  ");
  console.log(line(headers));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}

/** "ratio 3.41 (target >= 3): met" — the verdict is information, never an assertion. */
export function ratioLine(label: string, ratio: number, target: number): string {
  const met = ratio >= target;
  // Two decimals, or as many more as it takes not to read "0.50 (target >= 0.5): NOT met".
  let digits = 2;
  while (digits < 6 && Number(ratio.toFixed(digits)) >= target !== met) digits++;
  return `${label}: ${ratio.toFixed(digits)} (target >= ${target}): ${met ? "met" : "NOT met"}`;
}
