import type { ChainStatus, ChainStatusFilter } from "@/lib/schemas/chains";

const STATUS: Record<ChainStatus, { label: string; tone: string; title: string }> = {
  healthy: { label: "healthy", tone: "safe", title: "Every pass above its floor; receipts consistent" },
  collapse_imminent: {
    label: "collapse imminent",
    tone: "warn",
    title: "A pass fell under the size or density floor, or past the pass limit",
  },
  floor_breached: { label: "floor breached", tone: "danger", title: "A pass was unparseable or failed its schema" },
  client_mismatch: {
    label: "client mismatch",
    tone: "warn",
    title: "The agent's own guard disagreed with the server's verdict",
  },
  checked_mismatch: {
    label: "content mismatch",
    tone: "warn",
    title: "A pass's content, checked by the server, contradicts what the agent claimed about it",
  },
  measurement_mismatch: {
    label: "measurement mismatch",
    tone: "warn",
    title: "The density Floorline measured from a pass's content changes the guard's verdict on what the agent claimed",
  },
  broken_integrity: {
    label: "broken integrity",
    tone: "danger",
    title: "Missing or repeated passes, a pass whose input is not the previous output, or a directive ignored",
  },
  continued_after_halt: {
    label: "continued after halt",
    tone: "danger",
    title: "Passes arrived after the chain was told to HALT (a HALT directive or a halt boundary)",
  },
  restore_not_honoured: {
    label: "restore not honoured",
    tone: "danger",
    title: "After a restore, the next pass did not start from the restored pass's output",
  },
};

export const STATUS_LABEL: Record<ChainStatus, string> = Object.fromEntries(
  Object.entries(STATUS).map(([k, v]) => [k, v.label]),
) as Record<ChainStatus, string>;

/** The status filter's choices: every status, and `collapsed` (floor breached or collapse imminent). */
export const STATUS_FILTER_LABEL: Record<ChainStatusFilter, string> = {
  collapsed: "collapsed (breach or imminent)",
  ...STATUS_LABEL,
};

export function StatusBadges({ statuses }: { statuses: readonly ChainStatus[] }) {
  return (
    <span className="badges">
      {statuses.map((s) => (
        <span key={s} className={`badge ${STATUS[s].tone}`} title={STATUS[s].title} data-status={s}>
          {STATUS[s].label}
        </span>
      ))}
    </span>
  );
}
