// Every link of one chain to its stored originals at once: the tests' view of what the chain
// page shows pass by pass (the page itself asks only for the passes it draws).
import { and, eq, isNotNull } from "drizzle-orm";
import { getReadDb } from "@/db/index";
import { listOriginalLinksByHash, listRestoreLinks } from "@/db/queries/originals/links";
import { boundaries, passes } from "@/db/schema";
import type { OriginalLink, RestoreLinks } from "@/lib/originals/types";

export interface ChainOriginalLinks {
  /** Per pass_id: the stored original whose hash is the pass's input or its output. */
  passes: Record<string, { input: OriginalLink | null; output: OriginalLink | null }>;
  restores: RestoreLinks;
}

export async function getChainOriginalLinks(
  chainId: string,
  options: { now?: Date } = {},
): Promise<ChainOriginalLinks> {
  const now = options.now ?? new Date();
  const db = await getReadDb();
  const [passRows, restoreRows] = await Promise.all([
    db
      .select({
        pass_id: passes.passId,
        input_content_hash: passes.inputContentHash,
        current_content_hash: passes.currentContentHash,
      })
      .from(passes)
      .where(eq(passes.chainId, chainId)),
    db
      .selectDistinct({ restore_pass_id: boundaries.restorePassId })
      .from(boundaries)
      .where(
        and(eq(boundaries.chainId, chainId), eq(boundaries.strategy, "restore"), isNotNull(boundaries.restorePassId)),
      ),
  ]);
  const byHash = await listOriginalLinksByHash(
    passRows.flatMap((p) => [p.input_content_hash, p.current_content_hash]),
    { now },
  );
  const links: ChainOriginalLinks["passes"] = {};
  for (const p of passRows) {
    links[p.pass_id] = {
      input: (p.input_content_hash && byHash.get(p.input_content_hash)) || null,
      output: byHash.get(p.current_content_hash) ?? null,
    };
  }
  const restores = await listRestoreLinks(
    chainId,
    restoreRows.flatMap((r) => (r.restore_pass_id ? [r.restore_pass_id] : [])),
    { now },
  );
  return { passes: links, restores };
}
