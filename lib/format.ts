// How bytes, counts and times read on the dashboard, in one place so every page, table, chart
// tick and tooltip says the same thing the same way. Bytes are binary (KiB, MiB: what the API's
// limits are written in). Times are UTC to the second and say so: pages render on the server and
// hydrate in the browser, and both must print the same text whatever the viewer's time zone.
// A missing value prints as a dash.

const DASH = "—";
const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] as const;

/** 200 -> "200 B", 1536 -> "1.5 KiB", 2048 -> "2 KiB", 10_035 -> "9.8 KiB": at most three significant digits. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return DASH;
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text =
    unit === 0 || value >= 100
      ? Math.round(value).toString()
      : value.toFixed(value >= 10 ? 1 : 2).replace(/\.?0+$/, "");
  return `${text} ${BYTE_UNITS[unit]}`;
}

/** 12345 -> "12,345". */
export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? DASH : n.toLocaleString("en-US");
}

/** A signed count: "+1,200", "−300" (a true minus sign), "0". */
export function formatSigned(n: number): string {
  return (n > 0 ? "+" : n < 0 ? "−" : "") + Math.abs(n).toLocaleString("en-US");
}

/** 0.42 -> "42%", 0.042 -> "4.2%". */
export function formatPercent(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined ? DASH : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
}

function isoOf(value: string | Date): string {
  return (typeof value === "string" ? new Date(value) : value).toISOString();
}

/** "2026-03-04 17:05:09 UTC". */
export function formatUtc(value: string | Date | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  const iso = isoOf(value);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** The same instant on two short lines, for narrow table columns: ["2026-03-04", "17:05:09 UTC"]. */
export function formatUtcParts(value: string | Date): [date: string, time: string] {
  const iso = isoOf(value);
  return [iso.slice(0, 10), `${iso.slice(11, 19)} UTC`];
}

/** The hour an hourly bucket starts: "2026-03-04 17:00". */
export function formatUtcHour(value: string | Date): string {
  const iso = isoOf(value);
  return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00`;
}

/** "just now", "4 min ago", "3 h ago", "12 d ago", against the time of the request. */
export function formatAge(value: string | Date, now: Date): string {
  const d = typeof value === "string" ? new Date(value) : value;
  const seconds = Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000));
  if (seconds < 60) return "just now";
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** An integrity finding's kind as words: `continued_after_halt` reads "continued after halt". */
export function formatKind(kind: string): string {
  return kind.replaceAll("_", " ");
}
