import "server-only";
import { recordTraceRejected, recordTraceStored } from "@/lib/observability/metrics";
import { recordEvents } from "./webhooks";
import { type AnyColumn, and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { keysetDirection, type KeysetPage, keysetPage } from "../keyset";
import { getDb, getReadDb } from "../index";
import { onlyRow } from "../sql";
import type { Db } from "../types";
import { traceFindings, traceRejections, traces } from "../schema";
import { ApiError } from "@/lib/errors";
import { bodyDigest } from "@/lib/guard/canonical";
import {
  compressTraceWithStats,
  MissingVerificationReceiptError,
  type BindingConclusion,
  type ReasoningNode,
} from "@/lib/traces/trace";
import {
  type ListKey,
  missingReceiptError,
  type TraceRejectionWire,
  type TraceSubmission,
  type TraceSummary,
  type TraceWire,
} from "@/lib/schemas/traces";
import { REJECTED_CONTENT_MAX_BYTES, truncateUtf8, utf8Length } from "@/lib/traces/types";
import { nodeKeysOf } from "@/lib/traces/lineage";
import type { TraceFindingWire } from "@/lib/schemas/traces";
import { checkLineage, listTraceFindings, recordLineageFindings } from "./trace-lineage";

type TraceRecord = typeof traces.$inferSelect;

// jsonb hands objects back with its own key order; the wire keeps the reference's.
function conclusionWire(c: BindingConclusion): BindingConclusion {
  return { axiom: c.axiom, proof_receipt: c.proof_receipt, invalidated_paths: c.invalidated_paths };
}

function nodeWire(n: ReasoningNode): ReasoningNode {
  return {
    node_id: n.node_id,
    node_type: n.node_type,
    content: n.content,
    verification_receipt: n.verification_receipt ?? null,
  };
}

function toTraceWire(t: TraceRecord, findings: TraceFindingWire[]): TraceWire {
  return {
    trace_id: t.traceId,
    chain_id: t.chainId,
    parent_trace_id: t.parentTraceId,
    findings,
    conclusions: t.conclusions.map(conclusionWire),
    eviction_boundary_index: t.evictionBoundaryIndex,
    residual_digest: t.residualDigest,
    client_residual_digest: t.clientResidualDigest,
    digest_mismatch: t.digestMismatch,
    invalidated_paths: t.invalidatedPaths,
    node_count: t.nodeCount,
    pruned_chatter_count: t.prunedChatterCount,
    omitted_falsified_paths: t.omittedFalsifiedCount,
    nodes: t.nodes ? t.nodes.map(nodeWire) : null,
    created_at: t.createdAt.toISOString(),
  };
}

/**
 * The idempotency fingerprint: the submission as the server understood it, with absent and
 * null optional fields made equal, so a retry that spells "no chain" differently is a retry.
 */
function submissionDigest(s: TraceSubmission): string {
  return bodyDigest({
    trace_id: s.trace_id,
    chain_id: s.chain_id ?? null,
    // Only when named, so traces stored before lineages existed keep their fingerprint.
    ...(s.parent_trace_id ? { parent_trace_id: s.parent_trace_id } : {}),
    residual_digest: s.residual_digest ?? null,
    keep_nodes: s.keep_nodes,
    nodes: s.nodes.map(nodeWire),
  });
}

/**
 * Distils and stores a trace. A fail-closed submission (a VERIFIED_CONCLUSION without a
 * receipt) is recorded as a rejection before it is refused, so operators can see agents
 * trying to promote unverified conclusions.
 */
export async function storeTrace(submission: TraceSubmission): Promise<{ trace: TraceWire; created: boolean }> {
  const db = await getDb();
  let distilled: ReturnType<typeof compressTraceWithStats>;
  try {
    distilled = compressTraceWithStats(submission.nodes);
  } catch (error) {
    if (!(error instanceof MissingVerificationReceiptError)) throw error;
    const refused = missingReceiptError(error);
    const node = submission.nodes[error.nodeIndex];
    const kept = node ? truncateUtf8(node.content, REJECTED_CONTENT_MAX_BYTES) : null;
    // The rejection and its outbox event commit together.
    await db.transaction(async (tx) => {
      await tx.insert(traceRejections).values({
        traceId: submission.trace_id,
        chainId: submission.chain_id ?? null,
        nodeId: error.nodeId,
        nodeIndex: error.nodeIndex,
        nodeType: node?.node_type ?? null,
        content: kept?.text ?? null,
        contentBytes: kept?.bytes ?? null,
        reason: refused.message,
      });
      await recordEvents(tx, [
        {
          type: "trace.rejected",
          data: {
            trace_id: submission.trace_id,
            chain_id: submission.chain_id ?? null,
            node_id: error.nodeId,
            message: refused.message,
          },
        },
      ]);
    });
    recordTraceRejected();
    throw refused;
  }

  const { residual, invalidations, stats } = distilled;
  const digest = submissionDigest(submission);
  const clientDigest = submission.residual_digest ?? null;
  const lineage = {
    trace_id: submission.trace_id,
    parent_trace_id: submission.parent_trace_id ?? null,
    node_keys: nodeKeysOf(submission.nodes),
    conclusions: residual.conclusions,
    invalidated_paths: invalidations,
  };
  // The trace and the findings its arrival makes (its own, and its waiting descendants') commit together.
  const stored = await db.transaction(async (tx) => {
    const ancestors = await checkLineage(tx, lineage);
    const [inserted] = await tx
      .insert(traces)
      .values({
        traceId: submission.trace_id,
        chainId: submission.chain_id ?? null,
        parentTraceId: lineage.parent_trace_id,
        conclusions: residual.conclusions,
        invalidatedPaths: invalidations,
        evictionBoundaryIndex: residual.eviction_boundary_index,
        residualDigest: residual.residual_digest,
        clientResidualDigest: clientDigest,
        digestMismatch: clientDigest !== null && clientDigest !== residual.residual_digest,
        nodeCount: submission.nodes.length,
        prunedChatterCount: stats.prunedChatter,
        omittedFalsifiedCount: stats.omittedFalsifiedPaths,
        nodes: submission.keep_nodes ? submission.nodes.map(nodeWire) : null,
        nodeKeys: lineage.node_keys,
        bodyDigest: digest,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted) {
      await recordLineageFindings(tx, lineage, ancestors);
      return { row: inserted, created: true, findings: await listTraceFindings(tx, inserted.traceId) };
    }
    const [existing] = await tx.select().from(traces).where(eq(traces.traceId, submission.trace_id));
    if (!existing || existing.bodyDigest !== digest) {
      throw new ApiError(
        "idempotency_conflict",
        `Trace ${JSON.stringify(submission.trace_id)} was already stored with a different body.`,
      );
    }
    return { row: existing, created: false, findings: await listTraceFindings(tx, existing.traceId) };
  });
  if (stored.created) recordTraceStored();
  return { trace: toTraceWire(stored.row, stored.findings), created: stored.created };
}

export async function getTrace(traceId: string): Promise<TraceWire | null> {
  const db = await getReadDb();
  const [row] = await db.select().from(traces).where(eq(traces.traceId, traceId));
  return row ? toTraceWire(row, await listTraceFindings(db, traceId)) : null;
}

export async function traceExists(traceId: string): Promise<boolean> {
  const db = await getReadDb();
  const rows = await db.select({ id: traces.traceId }).from(traces).where(eq(traces.traceId, traceId)).limit(1);
  return rows.length > 0;
}

// Explicit columns are load-bearing: `nodes` is never read for a list.
const summaryColumns = {
  traceId: traces.traceId,
  chainId: traces.chainId,
  parentTraceId: traces.parentTraceId,
  conclusions: traces.conclusions,
  invalidatedPaths: traces.invalidatedPaths,
  evictionBoundaryIndex: traces.evictionBoundaryIndex,
  residualDigest: traces.residualDigest,
  clientResidualDigest: traces.clientResidualDigest,
  digestMismatch: traces.digestMismatch,
  nodeCount: traces.nodeCount,
  prunedChatterCount: traces.prunedChatterCount,
  omittedFalsifiedCount: traces.omittedFalsifiedCount,
  nodesKept: sql<boolean>`(${traces.nodes} is not null)`.mapWith(Boolean),
  // Through the findings' (trace_id, ...) index: one probe per listed row.
  findingCount:
    sql<number>`(select count(*) from ${traceFindings} where ${traceFindings.traceId} = ${traces.traceId})`.mapWith(
      Number,
    ),
  createdAt: traces.createdAt,
};

function selectSummaries(db: Db) {
  return db.select(summaryColumns).from(traces).$dynamic();
}

type SummaryRow = Awaited<ReturnType<typeof selectSummaries>>[number];

function toSummary(r: SummaryRow): TraceSummary {
  const conclusions = r.conclusions.map(conclusionWire);
  return {
    trace_id: r.traceId,
    chain_id: r.chainId,
    parent_trace_id: r.parentTraceId,
    conclusions,
    eviction_boundary_index: r.evictionBoundaryIndex,
    residual_digest: r.residualDigest,
    client_residual_digest: r.clientResidualDigest,
    digest_mismatch: r.digestMismatch,
    invalidated_paths: r.invalidatedPaths,
    node_count: r.nodeCount,
    pruned_chatter_count: r.prunedChatterCount,
    omitted_falsified_paths: r.omittedFalsifiedCount,
    created_at: r.createdAt.toISOString(),
    axioms: conclusions.map((c) => c.axiom),
    axiom_count: conclusions.length,
    invalidation_count: r.invalidatedPaths.length,
    nodes_kept: r.nodesKept,
    finding_count: r.findingCount,
  };
}

function likePattern(text: string): string {
  return "%" + text.replace(/[\\%_]/g, "\\$&") + "%";
}

export type Page<T, K> = KeysetPage<T, K>;

/**
 * Newest first, keyed on (created_at, tiebreak): many rows share a millisecond, so the
 * unique tiebreak is what keeps pages from skipping or repeating rows. The row-value
 * comparison matches the (created_at, id) index order on both drivers.
 */
function newestFirst(createdAt: SQL | AnyColumn, tiebreak: SQL | AnyColumn, castTiebreak: SQL) {
  return (from: ListKey<string | number> | undefined, forward: boolean) => {
    const { op, asc: ascending } = keysetDirection(true, forward);
    return {
      position: from
        ? sql`(${createdAt}, ${tiebreak}) ${op} (${from[0]}::timestamptz, ${from[1]}${castTiebreak})`
        : undefined,
      order: ascending ? [asc(createdAt), asc(tiebreak)] : [desc(createdAt), desc(tiebreak)],
    };
  };
}

export interface TraceListQuery {
  chain_id?: string;
  mismatch?: boolean;
  /** Only traces with (true) or without (false) lineage findings. */
  walls?: boolean;
  q?: string;
  limit: number;
  after?: ListKey<string>;
  before?: ListKey<string>;
}

export async function listTraces(query: TraceListQuery): Promise<Page<TraceSummary, ListKey<string>>> {
  const db = await getReadDb();
  const where: SQL[] = [];
  if (query.chain_id !== undefined) where.push(eq(traces.chainId, query.chain_id));
  if (query.mismatch !== undefined) where.push(eq(traces.digestMismatch, query.mismatch));
  if (query.walls !== undefined) {
    const hit = sql`exists (select 1 from ${traceFindings} where ${traceFindings.traceId} = ${traces.traceId})`;
    where.push(query.walls ? hit : sql`not ${hit}`);
  }
  if (query.q) {
    const pattern = likePattern(query.q);
    // Element by element: casting the jsonb to text would also match key names and JSON escapes.
    where.push(sql`(exists (select 1 from jsonb_array_elements(${traces.conclusions}) as c(v) where c.v ->> 'axiom' ilike ${pattern} or c.v ->> 'proof_receipt' ilike ${pattern})
      or exists (select 1 from jsonb_array_elements_text(${traces.invalidatedPaths}) as i(v) where i.v ilike ${pattern}))`);
  }
  const beyond = newestFirst(traces.createdAt, traces.traceId, sql``);
  const page = await keysetPage<SummaryRow, ListKey<string>>({
    limit: query.limit,
    after: query.after,
    before: query.before,
    keyOf: (r) => [r.createdAt.toISOString(), r.traceId],
    neighbours: "assume",
    read: (from, forward, limit) => {
      const { position, order } = beyond(from, forward);
      return selectSummaries(db)
        .where(and(...where, position))
        .orderBy(...order)
        .limit(limit);
    },
  });
  return { ...page, items: page.items.map(toSummary) };
}

export interface RejectionListQuery {
  chain_id?: string;
  trace_id?: string;
  limit: number;
  after?: ListKey<number>;
  before?: ListKey<number>;
}

function rejectionFilter(query: Pick<RejectionListQuery, "chain_id" | "trace_id">): SQL | undefined {
  return and(
    query.chain_id !== undefined ? eq(traceRejections.chainId, query.chain_id) : undefined,
    query.trace_id !== undefined ? eq(traceRejections.traceId, query.trace_id) : undefined,
  );
}

/** Fail-closed submissions, newest first, with how many there are in all (under the same filter). */
export async function listTraceRejections(
  query: RejectionListQuery,
): Promise<Page<TraceRejectionWire, ListKey<number>> & { total: number }> {
  const db = await getReadDb();
  const filter = rejectionFilter(query);
  const beyond = newestFirst(traceRejections.createdAt, traceRejections.id, sql`::bigint`);
  const [page, totals] = await Promise.all([
    keysetPage<typeof traceRejections.$inferSelect, ListKey<number>>({
      limit: query.limit,
      after: query.after,
      before: query.before,
      keyOf: (r) => [r.createdAt.toISOString(), r.id],
      neighbours: "assume",
      read: (from, forward, limit) => {
        const { position, order } = beyond(from, forward);
        return db
          .select()
          .from(traceRejections)
          .where(and(filter, position))
          .orderBy(...order)
          .limit(limit);
      },
    }),
    db.select({ total: count() }).from(traceRejections).where(filter),
  ]);
  return {
    ...page,
    total: onlyRow(totals).total,
    items: page.items.map((r) => ({
      id: r.id,
      trace_id: r.traceId,
      chain_id: r.chainId,
      node_id: r.nodeId,
      node_index: r.nodeIndex,
      node_type: r.nodeType,
      content: r.content,
      content_bytes: r.contentBytes,
      content_truncated: r.content !== null && r.contentBytes !== null && utf8Length(r.content) < r.contentBytes,
      reason: r.reason,
      created_at: r.createdAt.toISOString(),
    })),
  };
}
