import { bigserial, boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import type { BindingConclusion, ReasoningNode } from "@/lib/traces/trace";
import type { LineageFindingKind, NodeKey } from "@/lib/traces/lineage";

/** A distilled reasoning trace: the residual the reference keeps, plus audit counts. */
export const traces = pgTable(
  "traces",
  {
    traceId: text("trace_id").primaryKey(),
    chainId: text("chain_id"),
    /**
     * The predecessor this trace continues (docs/lineage.md). No foreign key: a parent may
     * arrive after its child, and the link is made when it does.
     */
    parentTraceId: text("parent_trace_id"),
    conclusions: jsonb("conclusions").$type<BindingConclusion[]>().notNull(),
    /** The union of invalidated paths, kept even when there is no axiom to attach them to. */
    invalidatedPaths: jsonb("invalidated_paths").$type<string[]>().notNull(),
    evictionBoundaryIndex: integer("eviction_boundary_index").notNull(),
    residualDigest: text("residual_digest").notNull(),
    clientResidualDigest: text("client_residual_digest"),
    digestMismatch: boolean("digest_mismatch").notNull(),
    nodeCount: integer("node_count").notNull(),
    prunedChatterCount: integer("pruned_chatter_count").notNull(),
    omittedFalsifiedCount: integer("omitted_falsified_count").notNull(),
    /** Raw nodes, only when the client asked to keep them (`keep_nodes`). */
    nodes: jsonb("nodes").$type<ReasoningNode[]>(),
    /**
     * One digest of each distinct node wording (lib/traces/lineage.ts), kept even when the
     * nodes are not, so a parent arriving later can still be matched against them.
     */
    nodeKeys: jsonb("node_keys").$type<NodeKey[]>().notNull().default([]),
    bodyDigest: text("body_digest").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("traces_chain_idx").on(t.chainId, t.createdAt),
    index("traces_created_idx").on(t.createdAt, t.traceId),
    index("traces_parent_idx").on(t.parentTraceId),
  ],
);

/**
 * A successor that walked into a wall an ancestor had already found: a node re-exploring an
 * invalidated path, or a negative conclusion contradicting a binding axiom. Each row keeps
 * the ancestor's wording and receipt so the pages can show the two side by side.
 */
export const traceFindings = pgTable(
  "trace_findings",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The successor. */
    traceId: text("trace_id").notNull(),
    kind: text("kind").$type<LineageFindingKind>().notNull(),
    ancestorTraceId: text("ancestor_trace_id").notNull(),
    /** Generations between the two: 1 is the parent. */
    depth: integer("depth").notNull(),
    /** The digest of the matched key (lib/traces/lineage.ts); with the rest, what makes a finding one. */
    matchKey: text("match_key").notNull(),
    /** The successor's first node on that path (walls); null for a contradiction. */
    nodeId: text("node_id"),
    nodeType: text("node_type"),
    /** How many of the successor's nodes took that path. */
    nodeCount: integer("node_count").notNull(),
    /** The successor's own words when they are stored (its invalidation); null for a node. */
    successorText: text("successor_text"),
    /** The ancestor's invalidated path, or its axiom. */
    ancestorText: text("ancestor_text").notNull(),
    /** The receipt that ruled the path out, or the axiom's proof. */
    ancestorReceipt: text("ancestor_receipt").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("trace_findings_identity_idx").on(t.traceId, t.kind, t.ancestorTraceId, t.matchKey),
    index("trace_findings_ancestor_idx").on(t.ancestorTraceId),
    index("trace_findings_created_idx").on(t.createdAt, t.id),
  ],
);

/** Fail-closed submissions: an agent tried to promote a conclusion with no receipt. */
export const traceRejections = pgTable(
  "trace_rejections",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    traceId: text("trace_id"),
    chainId: text("chain_id"),
    nodeId: text("node_id").notNull(),
    nodeIndex: integer("node_index").notNull(),
    /** The refused node as sent, its content cut to REJECTED_CONTENT_MAX_BYTES (lib/traces/types.ts). */
    nodeType: text("node_type"),
    content: text("content"),
    contentBytes: integer("content_bytes"),
    reason: text("reason"),
    createdAt: createdAt(),
  },
  (t) => [index("trace_rejections_created_idx").on(t.createdAt)],
);
