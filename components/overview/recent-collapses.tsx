import type { RecentCollapse } from "@/lib/chains/overview";
import { formatAge, formatCount, formatUtc } from "@/lib/format";
import { chainHref } from "@/lib/routes";
import { VerdictBadge } from "@/components/ui/verdict-badge";

const OUTCOME: Record<RecentCollapse["outcome"], { label: string; tone: string; title: string }> = {
  collapsed: { label: "collapsed", tone: "danger", title: "Content went past the floor" },
  unanswered: {
    label: "no boundary",
    tone: "warn",
    title: "The guard reached a floor here and no boundary answered it; nothing went past it yet",
  },
};

/**
 * The latest collapse points, failures first, each opening its chain at the collapsing pass;
 * under them, how many chains the guard saved in the range (not listed), opening those.
 */
export function RecentCollapses({
  items,
  now,
  saves,
}: {
  items: RecentCollapse[];
  now: Date;
  saves: { count: number; capped: boolean; href: string } | null;
}) {
  const savesNote = saves ? (
    <p className="muted small saves-note" data-testid="recent-saves">
      {saves.count === 0 ? (
        "No chain guarded in this range."
      ) : (
        <>
          <a href={saves.href}>
            {formatCount(saves.count)}
            {saves.capped ? "+" : ""} {saves.count === 1 && !saves.capped ? "chain" : "chains"} guarded
          </a>{" "}
          in this range, not listed: the guard reached a floor and the agent halted, restored or accepted the loss.
        </>
      )}
    </p>
  ) : null;
  if (items.length === 0)
    return (
      <>
        <div className="empty">No chain collapsed in this range.</div>
        {savesNote}
      </>
    );
  return (
    <>
      <ol className="recent-collapses" data-testid="recent-collapses">
        {items.map((c) => (
          <li key={c.chain_id} data-outcome={c.outcome}>
            <div className="line">
              <a
                href={chainHref(c.chain_id, { pass: c.pass_id, from: c.pass_number })}
                data-testid="recent-collapse-link"
              >
                {c.chain_id}
              </a>
              <span className={`badge ${OUTCOME[c.outcome].tone}`} title={OUTCOME[c.outcome].title}>
                {OUTCOME[c.outcome].label}
              </span>
              <span className="muted">pass {c.pass_number}</span>
              <VerdictBadge verdict={c.verdict} />
              <span className="muted">{c.content_class}</span>
            </div>
            <div className="line">
              {c.measured ? (
                <span className="measured-text" data-testid="recent-collapse-measured">
                  measured density {c.measured.density.toFixed(3)}, claimed {c.measured.claimed.toFixed(3)}
                </span>
              ) : (
                <span className="directive">{c.directive}</span>
              )}
              <time className="muted" dateTime={c.created_at} title={formatUtc(c.created_at)}>
                {formatAge(c.created_at, now)}
              </time>
            </div>
          </li>
        ))}
      </ol>
      {savesNote}
    </>
  );
}
