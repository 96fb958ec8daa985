// The chain dashboard's row types (the wire shapes they extend are lib/schemas'): what db/
// returns and components/ draw. They live here so components never import the query layer.
import type { CompressionPolicy } from "../guard/guard";
import type { IntegrityFinding } from "../schemas/chains";
import type { PassWire } from "../schemas/passes";

// lib/guard/judge.ts names the pass's wire type from here.
export type { PassWire };

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

export type { ChainKey } from "../schemas/chains";

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
