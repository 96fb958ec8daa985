import type { Verdict } from "@/lib/guard/guard";

const TONE: Record<Verdict, "safe" | "warn" | "danger" | "neutral"> = {
  NO_RECURSIVE_COMPRESSION: "neutral",
  SAFE_TO_COMPRESS: "safe",
  COLLAPSE_IMMINENT: "warn",
  FLOOR_BREACH_DETECTED: "danger",
};

const LABEL: Record<Verdict, string> = {
  NO_RECURSIVE_COMPRESSION: "first pass",
  SAFE_TO_COMPRESS: "safe",
  COLLAPSE_IMMINENT: "collapse imminent",
  FLOOR_BREACH_DETECTED: "floor breach",
};

/** A verdict as a coloured badge; the exact verdict string stays in the title for copy and search. */
export function VerdictBadge({ verdict }: { verdict: Verdict | string | null }) {
  if (!verdict) return <span className="badge neutral">no passes</span>;
  const known = verdict in TONE ? (verdict as Verdict) : null;
  return (
    <span className={`badge ${known ? TONE[known] : "neutral"}`} title={verdict} data-verdict={verdict}>
      {known ? LABEL[known] : verdict}
    </span>
  );
}
