// The trace audit's wire types: what db/queries/traces returns and components/ draw.
import type { TraceConstraints } from "./action-space";
import type { BindingConclusion, ReasoningNode } from "./trace";

export interface TraceWire {
  trace_id: string;
  chain_id: string | null;
  conclusions: BindingConclusion[];
  eviction_boundary_index: number;
  residual_digest: string;
  client_residual_digest: string | null;
  digest_mismatch: boolean;
  /** Every recorded negative constraint, sorted; kept even when no axiom carries them (the reference's residual drops them then). */
  invalidated_paths: string[];
  node_count: number;
  pruned_chatter_count: number;
  /** FALSIFIED_PATH nodes the reference dropped for lacking a receipt. */
  omitted_falsified_paths: number;
  /** The raw trace, only when it was submitted with `keep_nodes`. */
  nodes: ReasoningNode[] | null;
  created_at: string;
}

/**
 * A list row: the stored trace without its raw nodes (which can run to megabytes), plus the
 * counts a table shows. `axioms` repeats the conclusions' axiom texts for quick display.
 */
export interface TraceSummary extends Omit<TraceWire, "nodes"> {
  axioms: string[];
  axiom_count: number;
  invalidation_count: number;
  nodes_kept: boolean;
}

export interface TraceRejectionWire {
  id: number;
  trace_id: string | null;
  chain_id: string | null;
  node_id: string;
  node_index: number;
  created_at: string;
}

export interface ChainTraceConstraints {
  traces: Array<TraceConstraints & { omitted_falsified_paths: number; digest_mismatch: boolean }>;
  truncated: boolean;
}
