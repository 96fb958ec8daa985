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
  /** The refused node as sent (null for rejections recorded before these were kept). */
  node_type: string | null;
  /** Its content, the first REJECTED_CONTENT_MAX_BYTES bytes (cut on a character boundary). */
  content: string | null;
  /** The content's full size in UTF-8 bytes. */
  content_bytes: number | null;
  content_truncated: boolean;
  /** Why it was refused: the 422's message. */
  reason: string | null;
  created_at: string;
}

/** How much of a refused node's content is kept. */
export const REJECTED_CONTENT_MAX_BYTES = 4096;

export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a character boundary. */
export function truncateUtf8(text: string, maxBytes: number): { text: string; bytes: number } {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, bytes: bytes.length };
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) so a character is never split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), bytes: bytes.length };
}

export interface ChainTraceConstraints {
  traces: Array<TraceConstraints & { omitted_falsified_paths: number; digest_mismatch: boolean }>;
  truncated: boolean;
}
