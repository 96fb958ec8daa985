// Port of the Python reference's ReasoningTraceCompressor. The residual and its digest are the
// contract: clients running the reference compare ours with theirs byte for byte, so Python's
// sorting, stripping and JSON are followed exactly (python.ts in lib/guard).
import { sha256Hex } from "../guard/hash";
import { compareCodePoints, pyJsonDumps, pyStrip } from "../guard/python";

export const NODE_TYPES = ["EXPLORATORY_CHATTER", "VERIFIED_CONCLUSION", "FALSIFIED_PATH"] as const;
type NodeType = (typeof NODE_TYPES)[number];

export interface ReasoningNode {
  node_id: string;
  node_type: NodeType;
  content: string;
  verification_receipt?: string | null;
}

export interface BindingConclusion {
  axiom: string;
  proof_receipt: string;
  /** A set in the reference; listed in Python's sorted() order. */
  invalidated_paths: string[];
}

export interface CompressedResidual {
  conclusions: BindingConclusion[];
  eviction_boundary_index: number;
  residual_digest: string;
}

/** Thrown where the reference raises: a VERIFIED_CONCLUSION with no usable receipt. */
export class MissingVerificationReceiptError extends Error {
  constructor(
    readonly nodeId: string,
    readonly nodeIndex: number,
  ) {
    super(`Node ${nodeId} lacks a verification receipt; cannot promote to a binding axiom.`);
    this.name = "MissingVerificationReceiptError";
  }
}

interface CompressionStats {
  /** FALSIFIED_PATH nodes dropped because they carried no receipt (the reference omits them silently). */
  omittedFalsifiedPaths: number;
  prunedChatter: number;
}

export function compressTrace(nodes: readonly ReasoningNode[]): CompressedResidual {
  return compressTraceWithStats(nodes).residual;
}

export function compressTraceWithStats(nodes: readonly ReasoningNode[]): {
  residual: CompressedResidual;
  /** Every recorded negative constraint, sorted; kept even when no axiom carries them. */
  invalidations: string[];
  stats: CompressionStats;
} {
  const axioms: Array<[axiom: string, receipt: string]> = [];
  const invalidations = new Set<string>();
  const stats: CompressionStats = { omittedFalsifiedPaths: 0, prunedChatter: 0 };

  nodes.forEach((node, index) => {
    const receipt = node.verification_receipt;
    if (node.node_type === "EXPLORATORY_CHATTER") {
      stats.prunedChatter++;
    } else if (node.node_type === "VERIFIED_CONCLUSION") {
      if (!receipt || !pyStrip(receipt)) throw new MissingVerificationReceiptError(node.node_id, index);
      axioms.push([pyStrip(node.content), pyStrip(receipt)]);
    } else if (receipt) {
      // Truthiness, as in the reference: a whitespace-only receipt still records the path.
      invalidations.add(`${pyStrip(node.content)} -> ${pyStrip(receipt)}`);
    } else {
      stats.omittedFalsifiedPaths++;
    }
  });

  const evictionBoundary = nodes.length;
  if (axioms.length === 0 && invalidations.size === 0) {
    return {
      residual: { conclusions: [], eviction_boundary_index: evictionBoundary, residual_digest: sha256Hex("EMPTY") },
      invalidations: [],
      stats,
    };
  }

  const sortedInvalidations = [...invalidations].sort(compareCodePoints);
  const conclusions = axioms.map(([axiom, proof]) => ({
    axiom,
    proof_receipt: proof,
    invalidated_paths: [...sortedInvalidations],
  }));
  const digest = sha256Hex(
    pyJsonDumps(
      { axioms: axioms.map(([axiom]) => axiom), invalidations: sortedInvalidations },
      { separators: [",", ":"] },
    ),
  );
  return {
    residual: { conclusions, eviction_boundary_index: evictionBoundary, residual_digest: digest },
    invalidations: sortedInvalidations,
    stats,
  };
}
