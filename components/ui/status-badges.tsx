import type { ChainStatus, ChainStatusFilter } from "@/lib/schemas/chains";

const STATUS: Record<ChainStatus, { label: string; tone: string; title: string }> = {
  collapsed: {
    label: "collapsed",
    tone: "danger",
    title:
      "Content went past a floor: a pass after a halt, a restore not honoured, or a pass after a floor pass that no boundary answered",
  },
  guarded: {
    label: "guarded",
    tone: "safe",
    title:
      "The guard reached a floor and the agent obeyed: it halted, restored or accepted the loss through a boundary, and nothing went past the floor",
  },
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
  canary_lost: {
    label: "canary lost",
    tone: "warn",
    title: "A planted canary did not survive a pass, or canary retention fell below the class's min_canary_retention",
  },
  broken_markers: {
    label: "broken markers",
    tone: "warn",
    title:
      "A CCR marker that leads nowhere (no original, expired, evicted, nested), a retrieve's answer compressed again, or markers sent without the retrieve tool",
  },
};

export const STATUS_LABEL: Record<ChainStatus, string> = Object.fromEntries(
  Object.entries(STATUS).map(([k, v]) => [k, v.label]),
) as Record<ChainStatus, string>;

/** The status filter's choices: every status. */
export const STATUS_FILTER_LABEL: Record<ChainStatusFilter, string> = {
  ...STATUS_LABEL,
  collapsed: "collapsed (went past a floor)",
  guarded: "guarded (saved at a floor)",
};

/** The verdicts of a floor reached: on a guarded chain they are what the guard caught, not a failure. */
const FLOOR_REACHED: ReadonlySet<ChainStatus> = new Set(["floor_breached", "collapse_imminent"]);

export function StatusBadges({ statuses }: { statuses: readonly ChainStatus[] }) {
  const guarded = statuses.includes("guarded");
  return (
    <span className="badges">
      {statuses.map((s) => {
        const caught = guarded && FLOOR_REACHED.has(s);
        return (
          <span
            key={s}
            className={`badge ${caught ? "neutral" : STATUS[s].tone}`}
            title={caught ? `${STATUS[s].title}; the guard caught it and the agent obeyed` : STATUS[s].title}
            data-status={s}
          >
            {STATUS[s].label}
          </span>
        );
      })}
    </span>
  );
}
