import "server-only";
// Lineages of traces (docs/lineage.md): each trace may name its parent; at ingest the trace is
// compared with its ancestors, and a trace that arrives after its children is compared with
// them, so the order in which a lineage arrives does not change its findings.
import { asc, countDistinct, desc, eq, gte, inArray, sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { col, queryRows } from "../sql";
import type { Executor, Tx } from "../types";
import { traceFindings, traces } from "../schema";
import { ApiError } from "@/lib/errors";
import { LINEAGE_MAX_DEPTH, type LineageAncestor, lineageFindings, type NodeKey } from "@/lib/traces/lineage";
import type { TraceConstraints } from "@/lib/traces/action-space";
import type { TraceFindingWire } from "@/lib/schemas/traces";
import type { NODE_TYPES } from "@/lib/traces/trace";

/** How far up a new trace's line is walked to rule out a cycle, when traces already wait for it. */
export const LINEAGE_CYCLE_CHECK_LIMIT = 1_000;
/** How many waiting descendants a late parent gives findings to (nearest generations first). */
export const LINEAGE_MAX_DESCENDANTS = 256;
/**
 * Serialises the lineage part of trace ingest: without it a child and its parent stored at the
 * same moment would each miss the other (neither sees the other's uncommitted row), and two
 * traces naming each other could both pass the cycle check.
 */
const LINEAGE_LOCK = 0x6c696e65;

const FINDINGS_PER_INSERT = 1_000;

/** The trace being stored, as the lineage needs it. */
export interface LineageTrace {
  trace_id: string;
  parent_trace_id: string | null;
  node_keys: readonly NodeKey[];
  conclusions: ReadonlyArray<{ axiom: string; proof_receipt: string }>;
  invalidated_paths: readonly string[];
}

/** The line above `from` (which is depth 1), through the parent index, at most `limit` generations. */
async function lineAbove(tx: Executor, from: string, limit: number) {
  return queryRows(
    tx,
    sql`
      with recursive up(trace_id, parent_trace_id, depth) as (
        select trace_id, parent_trace_id, 1 from traces where trace_id = ${from}
        union all
        select t.trace_id, t.parent_trace_id, up.depth + 1
        from up join traces t on t.trace_id = up.parent_trace_id
        where up.depth < ${limit}::int
      )
      select trace_id, parent_trace_id, depth from up order by depth`,
    { trace_id: col.text, parent_trace_id: col.text.nullable(), depth: col.int },
  );
}

/** The residuals of the given line, in its order. */
async function residualsOf(tx: Executor, line: ReadonlyArray<{ trace_id: string; depth: number }>) {
  if (line.length === 0) return [];
  const rows = await tx
    .select({ traceId: traces.traceId, conclusions: traces.conclusions, invalidatedPaths: traces.invalidatedPaths })
    .from(traces)
    .where(
      inArray(
        traces.traceId,
        line.map((l) => l.trace_id),
      ),
    );
  const byId = new Map(rows.map((r) => [r.traceId, r]));
  return line.flatMap((l): LineageAncestor[] => {
    const row = byId.get(l.trace_id);
    return row
      ? [
          {
            trace_id: l.trace_id,
            depth: l.depth,
            conclusions: row.conclusions.map((c) => ({ axiom: c.axiom, proof_receipt: c.proof_receipt })),
            invalidated_paths: row.invalidatedPaths,
          },
        ]
      : [];
  });
}

/**
 * Before a trace with a parent is stored: refuses a parent whose line leads back to the trace
 * (the link would close a cycle), and answers the ancestors to compare it with. A cycle needs
 * a trace that was named as a parent before it arrived, so only then is the line walked past
 * the compared depth. Runs inside the ingest transaction, under the lineage lock.
 */
export async function checkLineage(tx: Tx, trace: LineageTrace): Promise<LineageAncestor[]> {
  await tx.execute(sql`select pg_advisory_xact_lock(${LINEAGE_LOCK})`);
  if (trace.parent_trace_id === null) return [];
  const awaited = await tx
    .select({ id: traces.traceId })
    .from(traces)
    .where(eq(traces.parentTraceId, trace.trace_id))
    .limit(1);
  const line = await lineAbove(
    tx,
    trace.parent_trace_id,
    awaited.length > 0 ? LINEAGE_CYCLE_CHECK_LIMIT : LINEAGE_MAX_DEPTH,
  );
  if (awaited.length > 0) {
    if (line.some((l) => l.parent_trace_id === trace.trace_id)) {
      throw new ApiError(
        "validation_failed",
        `Trace ${JSON.stringify(trace.parent_trace_id)} descends from ${JSON.stringify(trace.trace_id)}; naming it as the parent would make a cycle.`,
        { issues: [{ path: "parent_trace_id", message: "the parent descends from this trace" }] },
      );
    }
    const top = line.at(-1);
    if (line.length >= LINEAGE_CYCLE_CHECK_LIMIT && top?.parent_trace_id != null) {
      throw new ApiError(
        "validation_failed",
        `The parent's lineage is longer than ${LINEAGE_CYCLE_CHECK_LIMIT} traces; a cycle through this trace cannot be ruled out.`,
        { issues: [{ path: "parent_trace_id", message: "lineage too long to check" }] },
      );
    }
  }
  return residualsOf(tx, line.slice(0, LINEAGE_MAX_DEPTH));
}

async function insertFindings(tx: Tx, findings: ReturnType<typeof lineageFindings>): Promise<void> {
  for (let at = 0; at < findings.length; at += FINDINGS_PER_INSERT) {
    await tx
      .insert(traceFindings)
      .values(
        findings.slice(at, at + FINDINGS_PER_INSERT).map((f) => ({
          traceId: f.trace_id,
          kind: f.kind,
          ancestorTraceId: f.ancestor_trace_id,
          depth: f.depth,
          matchKey: f.match_key,
          nodeId: f.node_id,
          nodeType: f.node_type,
          nodeCount: f.node_count,
          successorText: f.successor_text,
          ancestorText: f.ancestor_text,
          ancestorReceipt: f.ancestor_receipt,
        })),
      )
      .onConflictDoNothing();
  }
}

/**
 * After a trace is stored: its own findings against its ancestors, and the findings its
 * arrival gives to traces that were already waiting below it (a parent arriving after its
 * child). A descendant at depth d is compared with this trace and the ancestors above it,
 * up to the same depth bound; what lies between it and this trace was compared when those
 * links were made.
 */
export async function recordLineageFindings(
  tx: Tx,
  trace: LineageTrace,
  ancestors: readonly LineageAncestor[],
): Promise<void> {
  const findings = lineageFindings(trace, ancestors);
  const below = await queryRows(
    tx,
    sql`
      with recursive down(trace_id, depth) as (
        select trace_id, 1 from traces where parent_trace_id = ${trace.trace_id}
        union all
        select t.trace_id, down.depth + 1
        from down join traces t on t.parent_trace_id = down.trace_id
        where down.depth < ${LINEAGE_MAX_DEPTH}::int
      )
      select d.trace_id, d.depth, t.node_keys, t.invalidated_paths
      from down d join traces t on t.trace_id = d.trace_id
      order by d.depth, d.trace_id
      limit ${LINEAGE_MAX_DESCENDANTS}::int`,
    { trace_id: col.text, depth: col.int, node_keys: col.json, invalidated_paths: col.json },
  );
  const self: LineageAncestor = {
    trace_id: trace.trace_id,
    depth: 0,
    conclusions: trace.conclusions,
    invalidated_paths: trace.invalidated_paths,
  };
  for (const d of below) {
    const line = [self, ...ancestors]
      .map((a) => ({ ...a, depth: a.depth + d.depth }))
      .filter((a) => a.depth <= LINEAGE_MAX_DEPTH);
    findings.push(
      ...lineageFindings(
        {
          trace_id: d.trace_id,
          node_keys: d.node_keys as NodeKey[],
          invalidated_paths: d.invalidated_paths as string[],
        },
        line,
      ),
    );
  }
  await insertFindings(tx, findings);
}

type FindingRow = typeof traceFindings.$inferSelect;

function toFindingWire(r: FindingRow): TraceFindingWire {
  return {
    kind: r.kind,
    ancestor_trace_id: r.ancestorTraceId,
    depth: r.depth,
    node_id: r.nodeId,
    node_type: r.nodeType as (typeof NODE_TYPES)[number] | null,
    node_count: r.nodeCount,
    text: r.successorText,
    ancestor_text: r.ancestorText,
    ancestor_receipt: r.ancestorReceipt,
    created_at: r.createdAt.toISOString(),
  };
}

/** A trace's findings, nearest ancestor first. */
export async function listTraceFindings(executor: Executor, traceId: string): Promise<TraceFindingWire[]> {
  const rows = await executor
    .select()
    .from(traceFindings)
    .where(eq(traceFindings.traceId, traceId))
    .orderBy(asc(traceFindings.depth), asc(traceFindings.kind), asc(traceFindings.id));
  return rows.map(toFindingWire);
}

/** The findings of several traces (a chain's, for the action space), by trace. */
export async function listFindingsOfTraces(traceIds: readonly string[]): Promise<Map<string, TraceFindingWire[]>> {
  const byTrace = new Map<string, TraceFindingWire[]>();
  if (traceIds.length === 0) return byTrace;
  const db = await getReadDb();
  const rows = await db
    .select()
    .from(traceFindings)
    .where(inArray(traceFindings.traceId, [...traceIds]))
    .orderBy(asc(traceFindings.traceId), asc(traceFindings.depth), asc(traceFindings.kind), asc(traceFindings.id));
  for (const r of rows) {
    const list = byTrace.get(r.traceId) ?? [];
    list.push(toFindingWire(r));
    byTrace.set(r.traceId, list);
  }
  return byTrace;
}

/** Successors that hit walls this trace found, newest first (a bounded sample for its page). */
export async function listFindingsAgainst(
  ancestorTraceId: string,
  limit = 50,
): Promise<Array<TraceFindingWire & { trace_id: string }>> {
  const db = await getReadDb();
  const rows = await db
    .select()
    .from(traceFindings)
    .where(eq(traceFindings.ancestorTraceId, ancestorTraceId))
    .orderBy(desc(traceFindings.createdAt), desc(traceFindings.id))
    .limit(limit);
  return rows.map((r) => ({ trace_id: r.traceId, ...toFindingWire(r) }));
}

/** The trace and its ancestors up to the depth bound, oldest first: the walls a successor inherits. */
export async function getLineageConstraints(
  traceId: string,
): Promise<{ traces: Array<TraceConstraints & { omitted_falsified_paths: number }>; truncated: boolean } | null> {
  const db = await getReadDb();
  const line = await lineAbove(db, traceId, LINEAGE_MAX_DEPTH + 1);
  if (line.length === 0) return null;
  const kept = line.slice(0, LINEAGE_MAX_DEPTH + 1);
  const rows = await db
    .select({
      traceId: traces.traceId,
      createdAt: traces.createdAt,
      conclusions: traces.conclusions,
      invalidatedPaths: traces.invalidatedPaths,
      omitted: traces.omittedFalsifiedCount,
    })
    .from(traces)
    .where(
      inArray(
        traces.traceId,
        kept.map((l) => l.trace_id),
      ),
    );
  const byId = new Map(rows.map((r) => [r.traceId, r]));
  const top = kept.at(-1);
  return {
    // The line goes on above the bound: its parent is named, whether or not it is stored.
    truncated: top?.parent_trace_id != null && kept.length > LINEAGE_MAX_DEPTH,
    traces: [...kept].reverse().flatMap((l) => {
      const r = byId.get(l.trace_id);
      return r
        ? [
            {
              trace_id: r.traceId,
              created_at: r.createdAt.toISOString(),
              conclusions: r.conclusions.map((c) => ({ axiom: c.axiom, proof_receipt: c.proof_receipt })),
              invalidated_paths: r.invalidatedPaths,
              omitted_falsified_paths: r.omitted,
            },
          ]
        : [];
    }),
  };
}

/** Distinct traces with at least one lineage finding, stored since a moment (all time when null). */
export async function countSuccessorsThatHitAWall(since: Date | null): Promise<number> {
  const db = await getReadDb();
  const [row] = await db
    .select({ n: countDistinct(traceFindings.traceId) })
    .from(traceFindings)
    .where(since ? gte(traceFindings.createdAt, since) : undefined);
  return row?.n ?? 0;
}
