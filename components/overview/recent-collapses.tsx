import type { RecentCollapse } from "@/lib/chains/overview";
import { formatAge, formatUtc } from "@/lib/format";
import { chainHref } from "@/lib/routes";
import { VerdictBadge } from "@/components/ui/verdict-badge";

/** The latest collapse points, each opening its chain at the collapsing pass. */
export function RecentCollapses({ items, now }: { items: RecentCollapse[]; now: Date }) {
  if (items.length === 0) return <div className="empty">No chain collapsed in this range.</div>;
  return (
    <ol className="recent-collapses" data-testid="recent-collapses">
      {items.map((c) => (
        <li key={c.chain_id}>
          <div className="line">
            <a
              href={chainHref(c.chain_id, { pass: c.pass_id, from: c.pass_number })}
              data-testid="recent-collapse-link"
            >
              {c.chain_id}
            </a>
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
  );
}
