import type { CanaryRetentionCounts } from "@/lib/canaries/survival";
import { formatCount } from "@/lib/format";

/**
 * Chains with canaries by their latest known retention (docs/canaries.md): a figure beside the
 * chain figures, alert when a chain fell below its class's min_canary_retention.
 */
export function CanaryFigure({ counts }: { counts: CanaryRetentionCounts }) {
  const alert = counts.below_floor > 0 || counts.lost > 0;
  return (
    <div className={`figure ${alert ? "alert" : ""}`} data-testid="figure-canaries">
      <div className="value">{formatCount(counts.chains - counts.intact)}</div>
      <div className="label">Chains losing canaries</div>
      <div className="hint" data-testid="figure-canaries-split">
        of {formatCount(counts.chains)} with canaries: {formatCount(counts.intact)} intact,{" "}
        {formatCount(counts.partial)} partial, {formatCount(counts.lost)} all lost
        {counts.below_floor > 0 ? `, ${formatCount(counts.below_floor)} below their floor` : ""}
      </div>
    </div>
  );
}
