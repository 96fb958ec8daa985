// The chain dashboard's wire and row types: what db/ returns and components/ draw. They
// live here so components never import the query layer.
import type { CompressionPolicy, Verdict } from "../guard/guard";
import type { ServerChecks } from "../content-checks/check-content";
import type { IntegrityFinding } from "./integrity";

export const BOUNDARY_STRATEGIES = ["halt", "restore", "accept_loss"] as const;

export type BoundaryStrategy = (typeof BOUNDARY_STRATEGIES)[number];

export interface PassWire {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  input_content_hash: string | null;
  current_content_hash: string;
  current_size_bytes: number;
  is_parseable: boolean;
  schema_valid: boolean;
  semantic_density_score: number;
  content_class: string;
  metadata: Record<string, unknown> | null;
  created_at: string;
  received_at: string;
  verdict: Verdict;
  directive: string;
  manifest_digest: string;
  policy_version: number;
  client_verdict: string | null;
  client_manifest_digest: string | null;
  client_mismatch: boolean;
  /** Present when the receipt carried its content: what the server measured for itself. */
  server_checks: ServerChecks | null;
  /** The guard's verdict on the server's findings; null without content. */
  checked_verdict: Verdict | null;
  /** The content contradicts one of the client's claims. */
  checked_mismatch: boolean;
}

export interface PassRow extends PassWire {
  /** Row id: with pass_number, the keyset of the passes table. */
  id: number;
  flags: number;
  integrity: IntegrityFinding | null;
}

export interface PassPage {
  rows: PassRow[];
  /** Keyset cursors [pass_number, id] for the neighbouring pages, null at either end. */
  prev: [number, number] | null;
  next: [number, number] | null;
}

export type PassCursor =
  | { after: [number, number] }
  | { before: [number, number] }
  | { from: number }
  | { start: true };

export interface PassDetail extends PassWire {
  id: number;
  policy: CompressionPolicy & { content_class: string; version: number };
}

export type ChainKey = [string | number, string];

export interface ChainVersion {
  pass_count: number;
  boundary_count: number;
  last_pass_number: number | null;
  last_verdict: string | null;
  last_activity_at: string;
}

/** Chains and collapsed chains per content class. */
export interface ClassStats {
  content_class: string;
  chains: number;
  collapsed: number;
}

export interface BoundaryWire {
  chain_id: string;
  pass_number: number;
  strategy: BoundaryStrategy;
  reason: string;
  restore_pass_id: string | null;
  relaxed_policy: Record<string, unknown> | null;
  created_at: string;
}
