// One account of where a cached original came from. The agent may record a source when it
// stores the original (chain and pass); pass receipts may name the original's hash as a
// pass's input or output. The two can disagree (agents often hash content their own way),
// so the page states the recorded source and what the receipts say about it, in one place.
import type { MatchingPass, SourcePass } from "./types";

export type SourceCheck =
  /** No chain or pass was recorded with the original. */
  | { kind: "none" }
  /** A chain was recorded without a pass. */
  | { kind: "chain_only"; chain_id: string }
  /** The recorded pass's receipt has not arrived. */
  | { kind: "pass_not_received"; chain_id: string; pass_id: string }
  /** The recorded pass's receipt names this hash as its input or output. */
  | { kind: "confirmed"; pass: SourcePass; relation: "input" | "output" }
  /** The recorded pass's receipt names other hashes: the agent hashed other bytes, or stored another text. */
  | { kind: "hashes_differ"; pass: SourcePass };

export interface Provenance {
  source: SourceCheck;
  /** Passes whose receipts name this hash, other than the recorded one. */
  others: MatchingPass[];
}

export function provenanceOf(
  hash: string,
  recordedChainId: string | null,
  recordedPassId: string | null,
  recorded: SourcePass | null,
  matching: readonly MatchingPass[],
): Provenance {
  let source: SourceCheck;
  if (!recordedChainId) source = { kind: "none" };
  else if (!recordedPassId) source = { kind: "chain_only", chain_id: recordedChainId };
  else if (!recorded) source = { kind: "pass_not_received", chain_id: recordedChainId, pass_id: recordedPassId };
  else if (recorded.input_content_hash === hash) source = { kind: "confirmed", pass: recorded, relation: "input" };
  else if (recorded.current_content_hash === hash) source = { kind: "confirmed", pass: recorded, relation: "output" };
  else source = { kind: "hashes_differ", pass: recorded };
  const isRecorded = (p: MatchingPass) => p.chain_id === recordedChainId && p.pass_id === recordedPassId;
  return { source, others: matching.filter((p) => !isRecorded(p)) };
}
