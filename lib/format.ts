// How times and counts read on the dashboard. Pages render on the server, so times are in
// UTC and say so; relative ages are computed against the time of the request.

/** "2026-03-04 17:05 UTC" */
export function formatUtc(iso: string | Date): string {
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "just now", "4 min ago", "3 h ago", "12 d ago" */
export function formatAge(iso: string | Date, now: Date): string {
  const d = typeof iso === "string" ? new Date(iso) : iso;
  const seconds = Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000));
  if (seconds < 60) return "just now";
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

export function formatCount(n: number): string {
  return n.toLocaleString("en");
}
