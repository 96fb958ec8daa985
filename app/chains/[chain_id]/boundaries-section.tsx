import type { BoundaryWire } from "@/db/queries/boundaries";
import { listPassHashes } from "@/db/queries/chains";
import { listOriginalLinksByHash } from "@/db/queries/originals";
import { BoundaryList } from "@/components/chains/boundary-list";

/** The chain's boundary receipts; a restore links to the cached original of the pass it restores. */
export async function BoundariesSection({ chainId, boundaries }: { chainId: string; boundaries: BoundaryWire[] }) {
  if (boundaries.length === 0) return null;
  const restored = boundaries.flatMap((b) => (b.restore_pass_id ? [b.restore_pass_id] : []));
  const hashes = await listPassHashes(chainId, restored);
  const links = await listOriginalLinksByHash([...hashes.values()].map((h) => h.current_content_hash));
  const restoreLinks = Object.fromEntries(
    restored.flatMap((passId) => {
      const link = links.get(hashes.get(passId)?.current_content_hash ?? "");
      return link ? [[passId, link]] : [];
    }),
  );
  return <BoundaryList chainId={chainId} boundaries={boundaries} restoreLinks={restoreLinks} />;
}
