// Walls across a lineage: what a successor trace did that an ancestor had already ruled out.
export const LINEAGE_FINDING_KINDS = ["wall_reexplored", "axiom_contradicted"] as const;
export type LineageFindingKind = (typeof LINEAGE_FINDING_KINDS)[number];

/** One distinct node wording of a trace, kept as a digest of its constraint key. */
export interface NodeKey {
  /** sha256 of `constraintKey(content)`. */
  key: string;
  /** The first node with that wording. */
  node_id: string;
  node_type: string;
  /** How many nodes had it. */
  count: number;
}
