import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { floorPointOf } from "@/lib/chains/outcome";
import { getChainSeries } from "@/db/queries/chain-series";
import { getCanaryView } from "@/db/queries/canaries";
import { getFactSeries } from "@/db/queries/chain-facts";
import type { ChainSummaryWire } from "@/lib/schemas/chains";
import { ChainCharts } from "@/components/chains/chain-charts";

export async function ChartsSection(props: {
  chainId: string;
  summary: ChainSummaryWire;
  boundaries: BoundaryWire[];
  selectedPassId: string | null;
}) {
  const [series, canaries, factPoints] = await Promise.all([
    getChainSeries(props.chainId, props.boundaries, props.summary),
    getCanaryView(props.chainId, props.summary.content_class),
    getFactSeries(props.chainId),
  ]);
  return (
    <ChainCharts
      series={series}
      collapse={props.summary.collapse_point}
      floorPoint={floorPointOf(props.summary.statuses)}
      boundaries={props.boundaries}
      selectedPassId={props.selectedPassId}
      canaries={canaries}
      facts={factPoints}
    />
  );
}
