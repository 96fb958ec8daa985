import type { BoundaryWire } from "@/lib/schemas/boundaries";
import type { ChainSeries } from "@/lib/chains/series";
import type { FloorPoint } from "@/lib/chains/outcome";
import { PassMetricChart, type CandidateOverlay, type CollapseMarker } from "@/components/charts/pass-metric-chart";
import { ChartLegend } from "./chart-legend";

export interface ChainChartsProps {
  series: ChainSeries;
  collapse: CollapseMarker | null;
  floorPoint: FloorPoint;
  boundaries: BoundaryWire[];
  selectedPassId: string | null;
  candidate?: CandidateOverlay | null;
}

/** Both curves of a chain, one above the other on the same pass-number axis. */
export function ChainCharts({ series, collapse, floorPoint, boundaries, selectedPassId, candidate }: ChainChartsProps) {
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
      <ChartLegend series={series} hasCandidate={Boolean(candidate)} floorPoint={collapse ? floorPoint : null} />
    </section>
  );
}
