// What a chain's integrity findings need beyond two neighbouring passes: its halt point
// (kept on the chain summary) and the passes its restore boundaries name.
import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { getDb } from "../index";
import { chains, passes } from "../schema";
import { integrityContext, type IntegrityContext } from "@/lib/chains/integrity";
import type { BoundaryWire } from "@/lib/schemas/boundaries";

export async function getIntegrityContext(
  chainId: string,
  boundaryList: readonly BoundaryWire[],
): Promise<IntegrityContext> {
  const db = await getDb();
  const restoreIds = [
    ...new Set(boundaryList.flatMap((b) => (b.strategy === "restore" && b.restore_pass_id ? [b.restore_pass_id] : []))),
  ];
  const [summary, restored] = await Promise.all([
    db.select({ haltAt: chains.haltPassNumber }).from(chains).where(eq(chains.chainId, chainId)),
    restoreIds.length > 0
      ? db
          .select({
            pass_id: passes.passId,
            pass_number: passes.passNumber,
            current_content_hash: passes.currentContentHash,
          })
          .from(passes)
          .where(and(eq(passes.chainId, chainId), inArray(passes.passId, restoreIds)))
      : Promise.resolve([]),
  ]);
  const haltAt = summary[0]?.haltAt ?? null;
  // The summary's halt point is already the lowest unanswered one; a halt boundary there names itself.
  return integrityContext(haltAt === null ? [] : [{ pass_number: haltAt, directive: "HALT" }], boundaryList, restored);
}
