// A chain's action space as its traces built it: whether there is one to show, and each
// trace's binding axioms and invalidated paths, oldest first (lib/traces/action-space.ts
// merges them; the page and MCP's floorline_constraints read this).
import "server-only";
import { asc, eq, sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { chains, traces } from "../schema";
import type { ChainTraceConstraints } from "@/lib/traces/types";

/**
 * Whether a chain has an action space to show: it has receipts, or a stored trace names it
 * (traces may name a chain before, or without, its receipts). A refused submission stores
 * no trace, so it alone does not make one.
 */
export async function chainHasActionSpace(chainId: string): Promise<boolean> {
  const db = await getReadDb();
  const [chain, trace] = await Promise.all([
    db.select({ id: chains.chainId }).from(chains).where(eq(chains.chainId, chainId)).limit(1),
    db.select({ id: traces.traceId }).from(traces).where(eq(traces.chainId, chainId)).limit(1),
  ]);
  return chain.length > 0 || trace.length > 0;
}

/** Enough of a chain's traces to build its action space; more than this is shown as truncated. */
export const ACTION_SPACE_TRACE_LIMIT = 2_000;

/** Oldest first, so the first wording of a constraint is the one that established it. */
export async function getChainTraceConstraints(chainId: string): Promise<ChainTraceConstraints> {
  const db = await getReadDb();
  const rows = await db
    .select({
      traceId: traces.traceId,
      createdAt: traces.createdAt,
      // Both drivers answer jsonb parsed; the shape is the stored trace's, checked on ingest.
      conclusions: sql<
        Array<{ axiom: string; proof_receipt: string }>
      >`(select coalesce(jsonb_agg(jsonb_build_object('axiom', c.v -> 'axiom', 'proof_receipt', c.v -> 'proof_receipt') order by c.i), '[]'::jsonb) from jsonb_array_elements(${traces.conclusions}) with ordinality as c(v, i))`,
      invalidatedPaths: traces.invalidatedPaths,
      omittedFalsifiedCount: traces.omittedFalsifiedCount,
      digestMismatch: traces.digestMismatch,
    })
    .from(traces)
    .where(eq(traces.chainId, chainId))
    .orderBy(asc(traces.createdAt), asc(traces.traceId))
    .limit(ACTION_SPACE_TRACE_LIMIT + 1);
  return {
    truncated: rows.length > ACTION_SPACE_TRACE_LIMIT,
    traces: rows.slice(0, ACTION_SPACE_TRACE_LIMIT).map((r) => ({
      trace_id: r.traceId,
      created_at: r.createdAt.toISOString(),
      conclusions: r.conclusions,
      invalidated_paths: r.invalidatedPaths,
      omitted_falsified_paths: r.omittedFalsifiedCount,
      digest_mismatch: r.digestMismatch,
    })),
  };
}
