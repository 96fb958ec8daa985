// What checking a candidate as a chain's next pass needs (the MCP tool floorline_check): the
// chain's class and last pass number, and its source found exactly as ingest finds it for that
// pass (db/ingest/measure-context.ts), so the check measures what storing the pass would.
import "server-only";
import { eq } from "drizzle-orm";
import { getSettledDb } from "../index";
import { loadMeasureInputs, readableOriginals } from "../ingest/measure-context";
import { chains } from "../schema";

export interface CheckContext {
  content_class: string;
  last_pass_number: number | null;
  /** The chain's source (pass 1's input), when it is known and the caller may read it. */
  source: string | undefined;
  /** Whether the caller may see the facts the source states (it may read stored data). */
  readsOriginals: boolean;
}

/**
 * Null when no receipt of the chain is stored. Read on the primary once this process's chain
 * summaries are folded, so a pass stored a moment ago counts; a source that ingest would copy
 * from a cached original is copied here as it would be there (once per chain; the first stays).
 */
export async function getCheckContext(chainId: string, readsOriginals: boolean): Promise<CheckContext | null> {
  const db = await getSettledDb();
  const [chain] = await db
    .select({ contentClass: chains.contentClass, lastPassNumber: chains.lastPassNumber })
    .from(chains)
    .where(eq(chains.chainId, chainId));
  if (!chain) return null;
  const candidate = {
    chain_id: chainId,
    pass_id: "",
    pass_number: (chain.lastPassNumber ?? 0) + 1,
    input_content: null,
    input_content_hash: null,
    // Any content makes the chain's source wanted; the candidate itself is measured by the caller.
    content: "",
    current_content_hash: "",
  };
  const inputs = await db.transaction((tx) => loadMeasureInputs(tx, [candidate], readableOriginals(readsOriginals)));
  return {
    content_class: chain.contentClass,
    last_pass_number: chain.lastPassNumber,
    source: inputs.sourceOf(chainId),
    readsOriginals,
  };
}
