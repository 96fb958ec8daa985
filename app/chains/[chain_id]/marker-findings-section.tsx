import { listMarkerFindings } from "@/db/queries/marker-findings";
import { MarkerFindings } from "@/components/chains/marker-findings";

/** The chain's marker findings (docs/markers.md); nothing when it has none. */
export async function MarkerFindingsSection({ chainId }: { chainId: string }) {
  const { total, items } = await listMarkerFindings(chainId);
  return <MarkerFindings chainId={chainId} findings={items} total={total} />;
}
