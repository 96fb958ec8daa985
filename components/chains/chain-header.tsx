import type { ChainSummaryWire } from "@/lib/schemas/chains";
import { formatAge, formatCount, formatUtc } from "@/lib/format";
import { chainHref, chainsHref, policiesHref } from "@/lib/routes";
import { FLOOR_POINT_WORDS, floorPointOf } from "@/lib/chains/outcome";
import { StatusBadges } from "@/components/ui/status-badges";
import { VerdictBadge } from "@/components/ui/verdict-badge";
import { CopyButton } from "@/components/ui/copy-button";
import { LiveUpdates } from "./live-updates";

/**
 * A chain with no floor pass: its verdicts follow the agent's claims, so where the server found
 * the content itself broken or under a floor (a content or measurement mismatch) the header
 * says the claims reached no floor, not that nothing broke.
 */
function noFloorWords(statuses: ChainSummaryWire["statuses"]): string {
  const contradicted = statuses.includes("checked_mismatch") || statuses.includes("measurement_mismatch");
  return contradicted ? "no floor reached on the agent's claims" : "no floor reached";
}

export function ChainHeader({ summary, now }: { summary: ChainSummaryWire; now: Date }) {
  const collapse = summary.collapse_point;
  const floorPoint = floorPointOf(summary.statuses);
  const words = FLOOR_POINT_WORDS[floorPoint];
  return (
    <header className="page-head">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href={chainsHref()}>Chains</a> <span aria-hidden>/</span>
      </nav>
      <h1>
        <span data-testid="chain-id">{summary.chain_id}</span>{" "}
        <CopyButton value={summary.chain_id} label="Copy chain id" icon />
      </h1>
      <div className="facts">
        <StatusBadges statuses={summary.statuses} />
        <span>
          class <a href={policiesHref({ class: summary.content_class })}>{summary.content_class}</a>
        </span>
        <span data-testid="pass-count">{formatCount(summary.pass_count)} passes</span>
        <span>
          last verdict <VerdictBadge verdict={summary.last_verdict} />
        </span>
        <span
          data-testid="collapse-summary"
          data-floor-point={collapse ? floorPoint : "none"}
          data-pass={collapse?.pass_number}
        >
          {collapse ? (
            <>
              {words.at}{" "}
              <a href={chainHref(summary.chain_id, { pass: collapse.pass_id, from: collapse.pass_number })}>
                pass {collapse.pass_number}
              </a>{" "}
              <VerdictBadge verdict={collapse.verdict} />
              {words.after ? <span className="muted"> {words.after}</span> : null}
            </>
          ) : (
            noFloorWords(summary.statuses)
          )}
        </span>
        {typeof summary.min_measured_density === "number" && summary.min_semantic_density !== null ? (
          // The claim and the measurement side by side: a void that claims density shows here
          // even when no verdict collapsed on the claims.
          <span data-testid="density-summary">
            lowest density {summary.min_semantic_density.toFixed(2)} claimed,{" "}
            <strong>{summary.min_measured_density.toFixed(2)} measured</strong>
          </span>
        ) : null}
        <span className="muted" title={formatUtc(summary.last_activity_at)}>
          last activity {formatAge(summary.last_activity_at, now)}
        </span>
        <LiveUpdates chainId={summary.chain_id} passCount={summary.pass_count} />
      </div>
    </header>
  );
}
