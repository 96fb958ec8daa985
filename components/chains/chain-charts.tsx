import type { BoundaryWire } from "@/lib/schemas/boundaries";
import type { ChainSeries } from "@/lib/chains/series";
import type { FloorPoint } from "@/lib/chains/outcome";
import { PassMetricChart, type CandidateOverlay, type CollapseMarker } from "@/components/charts/pass-metric-chart";
import { CanaryChart } from "@/components/charts/canary-chart";
import { passDomain } from "@/lib/chart-domain";
import type { CanaryPoint } from "@/lib/canaries/survival";
import type { IntegrityFinding } from "@/lib/schemas/chains";
import { FactsChart } from "@/components/charts/facts-chart";
import type { FactPoint } from "@/lib/facts/series";
import { ChartLegend } from "./chart-legend";

export interface ChainChartsProps {
  series: ChainSeries;
  collapse: CollapseMarker | null;
  floorPoint: FloorPoint;
  boundaries: BoundaryWire[];
  selectedPassId: string | null;
  candidate?: CandidateOverlay | null;
  /** The canary line (docs/canaries.md), for a chain with canaries; its class's floor, if any. */
  canaries?: { points: CanaryPoint[]; floor: number | null; findings?: IntegrityFinding[] };
  /** The facts-surviving line (docs/facts.md), for a chain whose passes were measured against its source. */
  facts?: FactPoint[];
}

/** Both curves of a chain, one above the other on the same pass-number axis. */
export function ChainCharts({
  series,
  collapse,
  floorPoint,
  boundaries,
  selectedPassId,
  candidate,
  canaries,
  facts,
}: ChainChartsProps) {
  const common = {
    points: series.points,
    floors: series.floors,
    collapse,
    floorPoint,
    boundaries: boundaries.map(({ pass_number, strategy, reason }) => ({ pass_number, strategy, reason })),
    findings: series.findings,
    mismatches: series.mismatches,
    selectedPassId,
    candidate,
  };
  // The size and density curves' pass axis (their max-pass limits included), for the canary and facts lines.
  const passAxis = passDomain(
    series.points[0]?.pass_number ?? 0,
    series.points.at(-1)?.pass_number ?? 1,
    series.floors.map((f) => f.max_pass_number),
  ).domain;
  return (
    <section className="panel chain-charts" aria-label="Curves">
      <div className="chart-head">
        <h2>Size over passes</h2>
        <span className="muted">bytes, log scale</span>
      </div>
      <PassMetricChart metric="size" {...common} />
      <div className="chart-head">
        <h2>Semantic density over passes</h2>
        <span className="muted">0 to 1</span>
      </div>
      <PassMetricChart metric="density" {...common} />
      {facts && facts.length > 0 ? (
        <>
          <div className="chart-head">
            <h2>Facts surviving over passes</h2>
            <span className="muted">share of the source&apos;s facts stated</span>
          </div>
          <FactsChart points={facts} domain={passAxis} floor={collapse ? { collapse, point: floorPoint } : null} />
        </>
      ) : null}
      {canaries && canaries.points.length > 0 ? (
        <>
          <div className="chart-head">
            <h2>Canaries surviving over passes</h2>
            <span className="muted">of those planted, where known</span>
          </div>
          <CanaryChart
            points={canaries.points}
            floor={canaries.floor}
            domain={passAxis}
            findings={canaries.findings ?? []}
          />
        </>
      ) : null}
      <ChartLegend series={series} hasCandidate={Boolean(candidate)} floorPoint={collapse ? floorPoint : null} />
    </section>
  );
}
