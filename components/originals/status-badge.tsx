import type { OriginalStatus } from "@/lib/schemas/originals";

const TONE: Record<OriginalStatus, string> = { live: "safe", evicted: "warn", expired: "neutral" };

export function OriginalStatusBadge({ status }: { status: OriginalStatus }) {
  return (
    <span className={`badge ${TONE[status]}`} data-testid="original-status">
      {status}
    </span>
  );
}
