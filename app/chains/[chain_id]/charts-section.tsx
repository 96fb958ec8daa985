import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { floorPointOf } from "@/lib/chains/outcome";
import { getChainSeries } from "@/db/queries/chain-series";
import { getCanarySeries } from "@/db/queries/canaries";
import { getFactSeries } from "@/db/queries/chain-facts";
import { getPolicy } from "@/db/queries/policies";
import type { ChainSummaryWire } from "@/lib/schemas/chains";
import { ChainCharts } from "@/components/chains/chain-charts";

export async function ChartsSection(props: {
  chainId: string;
  summary: ChainSummaryWire;
  boundaries: BoundaryWire[];
  selectedPassId: string | null;
}) {
  const [series, canaryPoints, factPoints] = await Promise.all([
    getChainSeries(props.chainId, props.boundaries, props.summary),
    getCanarySeries(props.chainId),
    getFactSeries(props.chainId),
  ]);
  // The class's canary floor, read only for a chain whose survival is known.
  const canaryFloor =
    canaryPoints.length > 0 ? (await getPolicy(props.summary.content_class)).min_canary_retention : null;
  return (
    <ChainCharts
      series={series}
      collapse={props.summary.collapse_point}
      floorPoint={floorPointOf(props.summary.statuses)}
      boundaries={props.boundaries}
      selectedPassId={props.selectedPassId}
      canaries={{ points: canaryPoints, floor: canaryFloor }}
      facts={factPoints}
    />
  );
}
