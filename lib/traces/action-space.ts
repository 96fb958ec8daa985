// What a successor may and may not do, read from distilled traces. Pure: the query layer
// hands in stored residuals, the pages draw what comes out.
//
// Matching rule (used for deduplication and for conflicts): two constraint texts are the
// same when their `constraintKey`s are equal: Unicode NFC, every run of whitespace collapsed
// to one space, trimmed, lower-cased. Agents restate one fact with different wrapping or
// capitalisation; anything looser (punctuation, stemming, synonyms) would start merging
// constraints that say different things, so it stops there.
import { pyStrip } from "../guard/python";
import type { ReasoningNode } from "./trace";

/** The reference joins a falsified path and its receipt with exactly this. */
const INVALIDATION_SEPARATOR = " -> ";

export function constraintKey(text: string): string {
  return text.normalize("NFC").replace(/\s+/gu, " ").trim().toLowerCase();
}

interface ParsedInvalidation {
  /** The falsified path (the node's content). */
  path: string;
  /** The receipt that ruled it out. */
  receipt: string;
}

/**
 * Splits a stored "content -> receipt" string at the first separator. Either side may itself
 * contain the separator, so the split is only a best reading for display; conflict detection
 * uses `invalidationPathKeys`, which does not guess.
 */
export function parseInvalidation(text: string): ParsedInvalidation {
  const at = text.indexOf(INVALIDATION_SEPARATOR);
  if (at < 0) return { path: text, receipt: "" };
  return { path: text.slice(0, at), receipt: text.slice(at + INVALIDATION_SEPARATOR.length) };
}

/**
 * Keys of every prefix that could have been the falsified path: one per separator in the
 * string. An audit would rather show a possible conflict than hide a real one whose path
 * happened to contain " -> ".
 */
export function invalidationPathKeys(text: string): string[] {
  return [...new Set(invalidationReadings(text).map((r) => r.key))];
}

/** Each way of splitting a stored invalidation into path and receipt, with the path's key. */
export function invalidationReadings(text: string): Array<ParsedInvalidation & { key: string }> {
  const readings: Array<ParsedInvalidation & { key: string }> = [];
  for (let at = text.indexOf(INVALIDATION_SEPARATOR); at >= 0; at = text.indexOf(INVALIDATION_SEPARATOR, at + 1)) {
    const path = text.slice(0, at);
    readings.push({ path, receipt: text.slice(at + INVALIDATION_SEPARATOR.length), key: constraintKey(path) });
  }
  if (readings.length === 0) readings.push({ path: text, receipt: "", key: constraintKey(text) });
  return readings;
}

export type NodeFate = "axiom" | "invalidation" | "omitted" | "pruned" | "rejected";

export interface NodeOutcome {
  fate: NodeFate;
  /** The axiom or invalidation string the node became, as stored in the residual. */
  produced: string | null;
  /** An invalidation an earlier node already produced (the reference keeps a set). */
  duplicate: boolean;
}

/**
 * What the reference compressor did with each node, so a kept raw trace can be shown with
 * its pruned and omitted nodes marked. Mirrors `compressTraceWithStats` rule for rule:
 * receipts of conclusions must strip to something, receipts of falsified paths only need
 * to be non-empty.
 */
export function nodeOutcomes(nodes: readonly ReasoningNode[]): NodeOutcome[] {
  const seen = new Set<string>();
  return nodes.map((node): NodeOutcome => {
    const receipt = node.verification_receipt;
    if (node.node_type === "EXPLORATORY_CHATTER") return { fate: "pruned", produced: null, duplicate: false };
    if (node.node_type === "VERIFIED_CONCLUSION") {
      if (!receipt || !pyStrip(receipt)) return { fate: "rejected", produced: null, duplicate: false };
      return { fate: "axiom", produced: pyStrip(node.content), duplicate: false };
    }
    if (!receipt) return { fate: "omitted", produced: null, duplicate: false };
    const produced = `${pyStrip(node.content)}${INVALIDATION_SEPARATOR}${pyStrip(receipt)}`;
    const duplicate = seen.has(produced);
    seen.add(produced);
    return { fate: "invalidation", produced, duplicate };
  });
}

/** One stored trace, as much of it as the action space needs. */
export interface TraceConstraints {
  trace_id: string;
  created_at: string;
  conclusions: ReadonlyArray<{ axiom: string; proof_receipt: string }>;
  invalidated_paths: readonly string[];
}

export interface Establishment {
  trace_id: string;
  created_at: string;
  receipt: string;
}

export interface AxiomEntry {
  key: string;
  /** As the earliest trace worded it. */
  axiom: string;
  established_by: Establishment[];
  /** Keys of forbidden paths that contradict this axiom. */
  conflicts_with: string[];
}

export interface ForbiddenEntry {
  key: string;
  /** As the earliest trace worded it. */
  path: string;
  established_by: Establishment[];
  /** Keys of axioms this falsified path contradicts. */
  conflicts_with: string[];
}

export interface Conflict {
  axiom_key: string;
  forbidden_key: string;
  axiom: string;
  /** The full stored invalidation that contradicts the axiom. */
  invalidation: string;
  axiom_trace_ids: string[];
  falsifying_trace_ids: string[];
  /** A trace that both established and falsified the same text. */
  within_trace: boolean;
}

interface ActionSpace {
  axioms: AxiomEntry[];
  forbidden: ForbiddenEntry[];
  conflicts: Conflict[];
}

function establish(list: Establishment[], next: Establishment): void {
  if (!list.some((e) => e.trace_id === next.trace_id && e.receipt === next.receipt)) list.push(next);
}

function byTime(a: TraceConstraints, b: TraceConstraints): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.trace_id < b.trace_id ? -1 : a.trace_id > b.trace_id ? 1 : 0;
}

/**
 * The union of binding axioms and forbidden paths across a chain's traces, deduplicated by
 * `constraintKey`, oldest first, each naming the traces (and receipts) that established it.
 * A conflict is an axiom whose key equals a possible falsified-path key of an invalidation
 * (see `invalidationPathKeys`); one trace contradicting itself counts too.
 */
export function buildActionSpace(traces: readonly TraceConstraints[]): ActionSpace {
  const ordered = [...traces].sort(byTime);
  const axioms = new Map<string, AxiomEntry>();
  const forbidden = new Map<string, ForbiddenEntry>();
  const invalidations: Array<{ text: string; trace: TraceConstraints; entry: ForbiddenEntry }> = [];

  for (const trace of ordered) {
    for (const { axiom, proof_receipt } of trace.conclusions) {
      const key = constraintKey(axiom);
      const entry = axioms.get(key) ?? { key, axiom, established_by: [], conflicts_with: [] };
      axioms.set(key, entry);
      establish(entry.established_by, {
        trace_id: trace.trace_id,
        created_at: trace.created_at,
        receipt: proof_receipt,
      });
    }
    for (const text of trace.invalidated_paths) {
      const { path, receipt } = parseInvalidation(text);
      const key = constraintKey(path);
      const entry = forbidden.get(key) ?? { key, path, established_by: [], conflicts_with: [] };
      forbidden.set(key, entry);
      establish(entry.established_by, { trace_id: trace.trace_id, created_at: trace.created_at, receipt });
      invalidations.push({ text, trace, entry });
    }
  }

  const conflicts = new Map<string, Conflict>();
  for (const { text, trace, entry } of invalidations) {
    for (const pathKey of invalidationPathKeys(text)) {
      const axiom = axioms.get(pathKey);
      if (!axiom) continue;
      const id = `${axiom.key}\u0000${entry.key}`;
      let conflict = conflicts.get(id);
      if (!conflict) {
        const axiomTraceIds = [...new Set(axiom.established_by.map((e) => e.trace_id))];
        conflict = {
          axiom_key: axiom.key,
          forbidden_key: entry.key,
          axiom: axiom.axiom,
          invalidation: text,
          axiom_trace_ids: axiomTraceIds,
          falsifying_trace_ids: [],
          within_trace: false,
        };
        conflicts.set(id, conflict);
        axiom.conflicts_with.push(entry.key);
        entry.conflicts_with.push(axiom.key);
      }
      if (!conflict.falsifying_trace_ids.includes(trace.trace_id)) conflict.falsifying_trace_ids.push(trace.trace_id);
      if (conflict.axiom_trace_ids.includes(trace.trace_id)) conflict.within_trace = true;
    }
  }

  return { axioms: [...axioms.values()], forbidden: [...forbidden.values()], conflicts: [...conflicts.values()] };
}
