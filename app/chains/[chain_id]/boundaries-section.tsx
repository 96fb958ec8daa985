import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { listRestoreLinks } from "@/db/queries/originals/links";
import { BoundaryList } from "@/components/chains/boundary-list";

/** The chain's boundary receipts; a restore links to the cached original it brings back. */
export async function BoundariesSection({ chainId, boundaries }: { chainId: string; boundaries: BoundaryWire[] }) {
  if (boundaries.length === 0) return null;
  const restored = boundaries.flatMap((b) => (b.restore_pass_id ? [b.restore_pass_id] : []));
  const restoreLinks = await listRestoreLinks(chainId, restored);
  return <BoundaryList chainId={chainId} boundaries={boundaries} restoreLinks={restoreLinks} />;
}
