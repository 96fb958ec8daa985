// What db/queries/originals* return for the dashboard beside the wire shapes (those are
// lib/schemas/originals.ts'), and components/ draw.
import type { OriginalStatus } from "../schemas/originals";

export interface OriginalLink {
  hash: string;
  status: OriginalStatus;
  size_bytes: number;
  /** The dashboard page of the original (or of its tombstone). */
  href: string;
}

export type RestoreMatch = "output_hash" | "recorded_pass" | "input_hash";

/**
 * Per restore_pass_id of a chain's restore boundaries: the original that restore brings
 * back. Preferably the restored pass's output (what the agent rolls back to), else the
 * original recorded with that chain and pass, else the restored pass's input.
 */
export type RestoreLinks = Record<string, OriginalLink & { match: RestoreMatch }>;

/** The receipt of the pass an original names as its source. */
export interface SourcePass {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  verdict: string;
  input_content_hash: string | null;
  current_content_hash: string;
}

export interface MatchingPass {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  /** `input`: the pass compressed this original; `output`: the pass produced it. */
  relation: "input" | "output";
  verdict: string;
}
