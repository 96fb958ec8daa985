// Display helpers shared by the originals views. UTC everywhere: the server and the browser
// render the same text, so hydration never disagrees about a time zone.

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

export function formatBytes(bytes: number | null): string {
  if (bytes === null) return "—";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${UNITS[unit]}`;
}

export function formatCount(n: number | null): string {
  return n === null ? "—" : n.toLocaleString("en-US");
}

export function formatSigned(n: number): string {
  return (n > 0 ? "+" : n < 0 ? "−" : "") + Math.abs(n).toLocaleString("en-US");
}

/** `2026-01-01 12:00:00 UTC`, or a dash. */
export function formatUtc(iso: string | null): string {
  if (!iso) return "—";
  return iso
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, " UTC")
    .replace(/Z$/, " UTC");
}

export function formatPercent(ratio: number | null): string {
  return ratio === null ? "—" : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
}

export function originalHref(hash: string): string {
  return `/originals/${hash}`;
}

export function chainHref(chainId: string, passId?: string | null): string {
  const base = `/chains/${encodeURIComponent(chainId)}`;
  return passId ? `${base}?pass=${encodeURIComponent(passId)}` : base;
}
