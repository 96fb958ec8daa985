"use client";
// The tooltip of a pass on a chain's chart: its verdict and directive, both densities where the
// server measured the pass, and whatever marks it carries.
import type { TooltipContentProps } from "recharts";
import type { SeriesPoint } from "@/lib/chains/series";
import { type GapRow, isGap, LOG_AXIS_MIN } from "@/lib/chart-domain";
import { formatBytes, formatKind } from "@/lib/format";
import { VerdictBadge } from "@/components/ui/verdict-badge";

/** What a pass chart draws: the pass's size or its density. */
export type Metric = "size" | "density";

export function PassTooltip({
  active,
  payload,
  metric,
}: Pick<TooltipContentProps, "active" | "payload"> & { metric: Metric }) {
  const row = active ? (payload?.[0]?.payload as SeriesPoint | GapRow | undefined) : undefined;
  if (!row || isGap(row)) return null;
  const point = row;
  return (
    <div className="chart-tooltip" data-testid="chart-tooltip">
      <div>
        <strong>Pass {point.pass_number}</strong> <code>{point.pass_id}</code>
      </div>
      <div>
        <VerdictBadge verdict={point.verdict} /> <span className="muted">policy v{point.policy_version}</span>
      </div>
      <div className="directive">{point.directive}</div>
      <div className="muted">
        size {formatBytes(point.size)} · density {point.density.toFixed(3)}
        {point.measured_density !== null ? ` claimed, ${point.measured_density.toFixed(3)} measured` : ""}
      </div>
      {point.measurement_mismatch ? (
        <div className="measured-text">
          Measured, the guard says {point.checked_verdict ?? "otherwise"}: the claim hid it
        </div>
      ) : null}
      {point.effective_verdict !== point.verdict ? (
        <div className="muted">The chain follows the measured verdict: {point.effective_verdict}</div>
      ) : null}
      {point.unmeasured ? <div className="muted">Not measured: judged on its claims</div> : null}
      {point.client_mismatch ? (
        <div className="warn-text">Client said {point.client_verdict ?? "a different digest"}</div>
      ) : null}
      {point.integrity ? <div className="integrity-text">Integrity: {formatKind(point.integrity)}</div> : null}
      <div className="muted hint">Click to open this pass</div>
      {metric === "size" && point.size < LOG_AXIS_MIN ? (
        <div className="muted">(0 bytes drawn at 1 B on the log axis)</div>
      ) : null}
    </div>
  );
}
