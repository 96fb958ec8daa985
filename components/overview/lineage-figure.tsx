import { formatCount } from "@/lib/format";
import { tracesHref } from "@/lib/routes";

/**
 * Successors that walked into a wall one of their ancestors had found (docs/lineage.md). A
 * trace figure beside the chain figures: it opens the traces list filtered to those traces.
 */
export function LineageFigure({ count }: { count: number }) {
  return (
    <a
      href={tracesHref({ walls: "true" })}
      className={`figure ${count > 0 ? "alert" : ""}`}
      data-testid="trace-figure-walls"
    >
      <div className="value">{formatCount(count)}</div>
      <div className="label">Successors that hit a wall</div>
      <div className="hint">re-explored an ancestor&apos;s ruled-out path or contradicted its axiom</div>
    </a>
  );
}
