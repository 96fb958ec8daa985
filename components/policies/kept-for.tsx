/** How long a class's passes are kept: its own retention, or the server-wide one when unset. */
export function KeptFor({ days }: { days: number | null }) {
  return days === null ? (
    <span className="muted" title="Follows FLOORLINE_RETENTION_DAYS">
      server-wide
    </span>
  ) : (
    <span title="Set by this class's policy">{`${days} ${days === 1 ? "day" : "days"}`}</span>
  );
}
