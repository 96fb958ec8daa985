import type { MarkerFindingCounts } from "@/lib/markers/findings";
import type { RangeKey } from "@/lib/chains/overview";
import { formatCount, formatKind } from "@/lib/format";
import { chainsHref } from "@/lib/routes";

/**
 * Chains whose compression markers lead nowhere (docs/markers.md): a figure beside the chain
 * figures that opens the chains list's broken_markers filter for the same range; its hint
 * counts the findings found in the range by kind.
 */
export function MarkerFigure({ counts, range }: { counts: MarkerFindingCounts; range: RangeKey }) {
  const kinds = Object.entries(counts.by_kind).filter(([, n]) => n > 0);
  return (
    <a
      href={chainsHref({ status: "broken_markers", range: range === "all" ? undefined : range })}
      className={`figure ${counts.active_chains > 0 ? "alert" : ""}`}
      data-testid="figure-broken-markers"
    >
      <div className="value">{formatCount(counts.active_chains)}</div>
      <div className="label">Chains with broken markers</div>
      <div className="hint" data-testid="figure-broken-markers-kinds">
        {kinds.length === 0
          ? "no marker finding in this range"
          : kinds.map(([kind, n]) => `${formatCount(n)} ${formatKind(kind)}`).join(", ")}
      </div>
    </a>
  );
}
