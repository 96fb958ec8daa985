import { FLOOR_POINT_WORDS, type FloorPoint } from "@/lib/chains/outcome";
import type { ChainSeries } from "@/lib/chains/series";

const FLOOR_POINT_TONE: Record<FloorPoint, string> = { guarded: "safe", collapsed: "danger", unanswered: "warn" };

/** What the lines and marks mean, and how much of the chain is drawn. */
export function ChartLegend({
  series,
  hasCandidate,
  floorPoint,
}: {
  series: ChainSeries;
  hasCandidate: boolean;
  /** What this chain's first floor pass was; null when it reached none. */
  floorPoint: FloorPoint | null;
}) {
  const measured = series.points.some((p) => p.measured_density !== null);
  return (
    <div className="chart-legend">
      <ul aria-label="Legend">
        <li>
          <span className="swatch line curve" /> the pass&apos;s value
          {measured ? " (density: as the agent claimed it)" : ""}
        </li>
        {measured ? (
          <li>
            <span className="swatch measured" /> density Floorline measured from the pass&apos;s content
          </li>
        ) : null}
        <li>
          <span className="glyph under-floor">◯</span> pass under its floor
        </li>
        <li>
          <span className="swatch line curve gap" /> a break in the line: passes that never arrived
        </li>
        <li>
          <span className="swatch dashed danger" /> floor of the policy version that judged the pass
        </li>
        {floorPoint ? (
          <li>
            <span className={`swatch vline ${FLOOR_POINT_TONE[floorPoint]}`} /> {FLOOR_POINT_WORDS[floorPoint].mark}:{" "}
            {FLOOR_POINT_WORDS[floorPoint].meaning}
          </li>
        ) : null}
        <li>
          <span className="swatch dashed muted" /> max pass number
        </li>
        <li>
          <span className="glyph boundary">⚑</span> boundary receipt (halt, restore, accept loss)
        </li>
        <li>
          <span className="glyph integrity">▲</span> integrity finding
        </li>
        <li>
          <span className="glyph mismatch">◆</span> client/server mismatch
        </li>
        {series.mismatches.some((m) => m.kind === "measurement") ? (
          <li>
            <span className="glyph measurement">⬡</span> measured and claimed density disagree: the guard&apos;s verdict
            differs
          </li>
        ) : null}
        {series.mismatches.some((m) => m.kind === "checked") ? (
          <li>
            <span className="glyph checked">■</span> content checked by the server contradicts the client
          </li>
        ) : null}
        {hasCandidate ? (
          <li>
            <span className="swatch dashed accent" /> candidate floor (what-if, not saved)
          </li>
        ) : null}
      </ul>
      <p className="muted" data-testid="series-coverage">
        {series.downsampled
          ? `${series.points.length.toLocaleString("en")} of ${series.total_passes.toLocaleString("en")} passes drawn: the smallest and largest value of every stretch, and every pass where something happened.`
          : `All ${series.total_passes.toLocaleString("en")} passes drawn.`}
        {series.flagged_truncated
          ? " This chain has more flagged passes than can be drawn; the earliest are shown."
          : ""}
      </p>
    </div>
  );
}
