import "server-only";
import { and, desc, eq, lt, or, sql, type SQL } from "drizzle-orm";
import { getDb } from "../index";
import { traceRejections, traces } from "../schema";
import { ApiError } from "@/lib/errors";
import { bodyDigest } from "@/lib/canonical";
import { compressTraceWithStats, MissingVerificationReceiptError, type BindingConclusion, type ReasoningNode } from "@/lib/trace";
import type { TraceSubmission } from "@/lib/schemas/traces";

type TraceRecord = typeof traces.$inferSelect;

export interface TraceWire {
  trace_id: string;
  chain_id: string | null;
  conclusions: BindingConclusion[];
  eviction_boundary_index: number;
  residual_digest: string;
  client_residual_digest: string | null;
  digest_mismatch: boolean;
  invalidated_paths: string[];
  node_count: number;
  pruned_chatter_count: number;
  omitted_falsified_paths: number;
  nodes: ReasoningNode[] | null;
  created_at: string;
}

export function toTraceWire(t: TraceRecord): TraceWire {
  return {
    trace_id: t.traceId,
    chain_id: t.chainId,
    conclusions: t.conclusions,
    eviction_boundary_index: t.evictionBoundaryIndex,
    residual_digest: t.residualDigest,
    client_residual_digest: t.clientResidualDigest,
    digest_mismatch: t.digestMismatch,
    invalidated_paths: t.invalidatedPaths,
    node_count: t.nodeCount,
    pruned_chatter_count: t.prunedChatterCount,
    omitted_falsified_paths: t.omittedFalsifiedCount,
    nodes: t.nodes,
    created_at: t.createdAt.toISOString(),
  };
}

export function missingReceiptError(error: MissingVerificationReceiptError): ApiError {
  return new ApiError(
    "missing_verification_receipt",
    `Node ${JSON.stringify(error.nodeId)} is a VERIFIED_CONCLUSION without a verification receipt; it cannot be promoted to a binding axiom.`,
    { extra: { node_id: error.nodeId }, issues: [{ path: `nodes.${error.nodeIndex}.verification_receipt`, message: "required for VERIFIED_CONCLUSION" }] },
  );
}

/** Distils and stores a trace; fail-closed submissions are recorded, then refused. */
export async function storeTrace(submission: TraceSubmission): Promise<{ trace: TraceWire; created: boolean }> {
  const db = await getDb();
  let distilled: ReturnType<typeof compressTraceWithStats>;
  try {
    distilled = compressTraceWithStats(submission.nodes);
  } catch (error) {
    if (!(error instanceof MissingVerificationReceiptError)) throw error;
    await db.insert(traceRejections).values({
      traceId: submission.trace_id,
      chainId: submission.chain_id ?? null,
      nodeId: error.nodeId,
      nodeIndex: error.nodeIndex,
    });
    throw missingReceiptError(error);
  }

  const { residual, invalidations, stats } = distilled;
  const digest = bodyDigest(submission);
  const clientDigest = submission.residual_digest ?? null;
  const [inserted] = await db
    .insert(traces)
    .values({
      traceId: submission.trace_id,
      chainId: submission.chain_id ?? null,
      conclusions: residual.conclusions,
      invalidatedPaths: invalidations,
      evictionBoundaryIndex: residual.eviction_boundary_index,
      residualDigest: residual.residual_digest,
      clientResidualDigest: clientDigest,
      digestMismatch: clientDigest !== null && clientDigest !== residual.residual_digest,
      nodeCount: submission.nodes.length,
      prunedChatterCount: stats.prunedChatter,
      omittedFalsifiedCount: stats.omittedFalsifiedPaths,
      nodes: submission.keep_nodes ? submission.nodes : null,
      bodyDigest: digest,
    })
    .onConflictDoNothing()
    .returning();
  if (inserted) return { trace: toTraceWire(inserted), created: true };

  const [stored] = await db.select().from(traces).where(eq(traces.traceId, submission.trace_id));
  if (!stored || stored.bodyDigest !== digest) {
    throw new ApiError("idempotency_conflict", `Trace ${JSON.stringify(submission.trace_id)} was already stored with a different body.`);
  }
  return { trace: toTraceWire(stored), created: false };
}

export async function getTrace(traceId: string): Promise<TraceWire | null> {
  const db = await getDb();
  const [row] = await db.select().from(traces).where(eq(traces.traceId, traceId));
  return row ? toTraceWire(row) : null;
}

export interface TraceListQuery {
  chain_id?: string;
  mismatch?: boolean;
  q?: string;
  limit: number;
  after?: [string, string];
}

export async function listTraces(query: TraceListQuery): Promise<{ items: TraceWire[]; next: [string, string] | null }> {
  const db = await getDb();
  const where: SQL[] = [];
  if (query.chain_id) where.push(eq(traces.chainId, query.chain_id));
  if (query.mismatch !== undefined) where.push(eq(traces.digestMismatch, query.mismatch));
  if (query.q) {
    const pattern = "%" + query.q.replace(/[\\%_]/g, "\\$&") + "%";
    where.push(sql`(${traces.conclusions}::text ilike ${pattern} or ${traces.invalidatedPaths}::text ilike ${pattern})`);
  }
  if (query.after) {
    const [at, id] = query.after;
    where.push(or(lt(traces.createdAt, new Date(at)), and(eq(traces.createdAt, new Date(at)), lt(traces.traceId, id)))!);
  }
  const rows = await db
    .select()
    .from(traces)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(traces.createdAt), desc(traces.traceId))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(toTraceWire),
    next: rows.length > query.limit && last ? [last.createdAt.toISOString(), last.traceId] : null,
  };
}
