// Walls across a lineage: what a successor trace did that an ancestor had already settled.
// Pure: the query layer hands in the successor and its ancestors, nearest first, and stores
// what comes out (docs/lineage.md).
//
// Matching is the action space's rule (action-space.ts): two texts meet when their
// `constraintKey`s are equal (NFC, whitespace collapsed, trimmed, lower-cased), and an
// invalidation "path -> receipt" is read at every separator, so a path containing " -> " is
// still found. It stops there: a paraphrase, a reordered sentence or a synonym is a different
// text, and a negation ("X works" against "X does not work") is not read as a contradiction.
import { sha256Hex } from "../guard/hash";
import { pyStrip } from "../guard/python";
import { constraintKey, invalidationReadings } from "./action-space";

export const LINEAGE_FINDING_KINDS = ["wall_reexplored", "axiom_contradicted"] as const;
export type LineageFindingKind = (typeof LINEAGE_FINDING_KINDS)[number];

/** How many generations up a successor is compared with (1 is its parent). */
export const LINEAGE_MAX_DEPTH = 8;
/**
 * Findings kept per trace: the first found, walls re-explored before axioms contradicted, nearer
 * ancestors first. A successor that repeats hundreds of its line's walls is one finding's worth
 * of news to an operator, and each finding is a row written in the trace's ingest.
 */
export const LINEAGE_MAX_FINDINGS = 256;

/** One distinct node wording of a trace, kept as a digest of its constraint key. */
export interface NodeKey {
  /** sha256 of `constraintKey` of the stripped content. */
  key: string;
  /** The first node with that wording. */
  node_id: string;
  node_type: string;
  /** How many nodes had it. */
  count: number;
}

/** The digest a wording is matched by: the texts themselves need not be kept to match later. */
function matchKeyOf(text: string): string {
  return sha256Hex(constraintKey(text));
}

/** Every node's wording, of every type: chatter that walks a ruled-out path is the loop itself. */
export function nodeKeysOf(nodes: ReadonlyArray<{ node_id: string; node_type: string; content: string }>): NodeKey[] {
  const byKey = new Map<string, NodeKey>();
  for (const node of nodes) {
    // Stripped the way the compressor strips a path before storing it, so the two keys agree.
    const key = matchKeyOf(pyStrip(node.content));
    const seen = byKey.get(key);
    if (seen) seen.count++;
    else byKey.set(key, { key, node_id: node.node_id, node_type: node.node_type, count: 1 });
  }
  return [...byKey.values()];
}

interface LineageSuccessor {
  trace_id: string;
  node_keys: readonly NodeKey[];
  invalidated_paths: readonly string[];
}

export interface LineageAncestor {
  trace_id: string;
  /** Generations above the successor: 1 is its parent. */
  depth: number;
  conclusions: ReadonlyArray<{ axiom: string; proof_receipt: string }>;
  invalidated_paths: readonly string[];
}

interface LineageFinding {
  trace_id: string;
  kind: LineageFindingKind;
  ancestor_trace_id: string;
  depth: number;
  match_key: string;
  /** The successor's first node on that path (a wall), or the node behind its invalidation. */
  node_id: string | null;
  node_type: string | null;
  node_count: number;
  /** The successor's stored invalidation (a contradiction); null for a wall, whose node is not kept. */
  successor_text: string | null;
  /** The ancestor's ruled-out path, or its axiom. */
  ancestor_text: string;
  /** What ruled the path out, or the axiom's proof. */
  ancestor_receipt: string;
}

/**
 * The walls a successor hit, one per (kind, ancestor, matched text):
 * - `wall_reexplored`: a node of the successor, of any type, whose wording is a path an
 *   ancestor's invalidation ruled out;
 * - `axiom_contradicted`: an invalidation of the successor (its negative conclusion, kept in
 *   the residual) whose path is an ancestor's binding axiom, as the action space reads a
 *   conflict between an axiom and an invalidation.
 */
export function lineageFindings(successor: LineageSuccessor, ancestors: readonly LineageAncestor[]): LineageFinding[] {
  const nodes = new Map(successor.node_keys.map((n) => [n.key, n]));
  const findings = new Map<string, LineageFinding>();
  const add = (finding: LineageFinding) => {
    const id = `${finding.kind}\u0000${finding.ancestor_trace_id}\u0000${finding.match_key}`;
    if (findings.size < LINEAGE_MAX_FINDINGS && !findings.has(id)) findings.set(id, finding);
  };

  for (const ancestor of ancestors) {
    for (const text of ancestor.invalidated_paths) {
      for (const reading of invalidationReadings(text)) {
        const matchKey = sha256Hex(reading.key);
        const node = nodes.get(matchKey);
        if (!node) continue;
        add({
          trace_id: successor.trace_id,
          kind: "wall_reexplored",
          ancestor_trace_id: ancestor.trace_id,
          depth: ancestor.depth,
          match_key: matchKey,
          node_id: node.node_id,
          node_type: node.node_type,
          node_count: node.count,
          successor_text: null,
          ancestor_text: reading.path,
          ancestor_receipt: reading.receipt,
        });
      }
    }
  }

  const axioms = new Map<string, { ancestor: LineageAncestor; axiom: string; proof_receipt: string }[]>();
  for (const ancestor of ancestors) {
    for (const c of ancestor.conclusions) {
      const key = constraintKey(c.axiom);
      const list = axioms.get(key) ?? [];
      list.push({ ancestor, axiom: c.axiom, proof_receipt: c.proof_receipt });
      axioms.set(key, list);
    }
  }
  for (const text of successor.invalidated_paths) {
    for (const reading of invalidationReadings(text)) {
      const held = axioms.get(reading.key);
      if (!held) continue;
      const matchKey = sha256Hex(reading.key);
      const node = nodes.get(matchKey);
      for (const { ancestor, axiom, proof_receipt } of held) {
        add({
          trace_id: successor.trace_id,
          kind: "axiom_contradicted",
          ancestor_trace_id: ancestor.trace_id,
          depth: ancestor.depth,
          match_key: matchKey,
          node_id: node?.node_id ?? null,
          node_type: node?.node_type ?? null,
          node_count: node?.count ?? 0,
          successor_text: text,
          ancestor_text: axiom,
          ancestor_receipt: proof_receipt,
        });
      }
    }
  }
  return [...findings.values()];
}
