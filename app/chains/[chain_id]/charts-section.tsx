import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { floorPointOf } from "@/lib/chains/outcome";
import { getChainSeries } from "@/db/queries/chain-series";
import type { ChainSummaryWire } from "@/lib/schemas/chains";
import { ChainCharts } from "@/components/chains/chain-charts";

export async function ChartsSection(props: {
  chainId: string;
  summary: ChainSummaryWire;
  boundaries: BoundaryWire[];
  selectedPassId: string | null;
}) {
  const series = await getChainSeries(props.chainId, props.boundaries, props.summary);
  return (
    <ChainCharts
      series={series}
      collapse={props.summary.collapse_point}
      floorPoint={floorPointOf(props.summary.statuses)}
      boundaries={props.boundaries}
      selectedPassId={props.selectedPassId}
    />
  );
}
