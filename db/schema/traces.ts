import { bigserial, boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import type { BindingConclusion, ReasoningNode } from "@/lib/traces/trace";

/** A distilled reasoning trace: the residual the reference keeps, plus audit counts. */
export const traces = pgTable(
  "traces",
  {
    traceId: text("trace_id").primaryKey(),
    chainId: text("chain_id"),
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
    bodyDigest: text("body_digest").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("traces_chain_idx").on(t.chainId, t.createdAt), index("traces_created_idx").on(t.createdAt, t.traceId)],
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
