// The CCR store's wire types: what db/queries/originals* return and components/ draw.
import type { MissReason } from "./rules";

export const ORIGINAL_STATUSES = ["live", "evicted", "expired"] as const;

export type OriginalStatus = (typeof ORIGINAL_STATUSES)[number];

export interface OriginalSummaryWire {
  hash: string;
  status: OriginalStatus;
  size_bytes: number;
  compressed_size_bytes: number | null;
  content_type: string | null;
  tool_name: string | null;
  chain_id: string | null;
  pass_id: string | null;
  original_items: number | null;
  compressed_items: number | null;
  original_tokens: number | null;
  compressed_tokens: number | null;
  tokens_saved: number | null;
  retrieval_tokens: number;
  tokens_estimated: boolean;
  ttl_seconds: number | null;
  created_at: string;
  expires_at: string | null;
  last_retrieved_at: string | null;
  retrieval_count: number;
  store_count: number;
  gone_at: string | null;
  gone_reason: string | null;
}

export interface RetrievedOriginalWire extends OriginalSummaryWire {
  original: string;
}

export interface StoreResultWire {
  hash: string;
  size_bytes: number;
  marker: string;
  marker_hash: string;
  deduplicated: boolean;
  status: "live";
  content_type: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface CcrTotalsWire {
  stored: number;
  /** Original plus compressed text taken in (what counts against the budget). */
  stored_bytes: number;
  deduplicated: number;
  retrieved: number;
  retrieved_bytes: number;
  misses: Record<MissReason, number> & { total: number };
  evictions: number;
  evicted_bytes: number;
  expiries: number;
  expired_bytes: number;
  /** Retrievals over retrieval attempts; null before the first attempt. */
  hit_rate: number | null;
  tokens: { saved_gross: number; respent: number; net: number; respent_share: number | null };
}

export interface OriginalStatsWire {
  config: {
    max_bytes: number;
    default_ttl_seconds: number | null;
    max_original_bytes: number;
    min_prefix_length: number;
  };
  store: { live_count: number; live_bytes: number; evicted_count: number; expired_count: number; budget_used: number };
  totals: CcrTotalsWire;
  hourly: (CcrTotalsWire & { hour: string })[];
}

export interface OriginalLink {
  hash: string;
  status: OriginalStatus;
  size_bytes: number;
  /** The dashboard page of the original (or of its tombstone). */
  href: string;
}

export type RestoreMatch = "output_hash" | "recorded_pass" | "input_hash";

export interface ChainOriginalLinks {
  /** Per pass_id: the stored original whose hash is the pass's input or its output. */
  passes: Record<string, { input: OriginalLink | null; output: OriginalLink | null }>;
  /**
   * Per restore_pass_id of the chain's restore boundaries: the original that restore brings
   * back. Preferably the restored pass's output (what the agent rolls back to), else the
   * original recorded with that chain and pass, else the restored pass's input.
   */
  restores: Record<string, OriginalLink & { match: RestoreMatch }>;
}

/** The receipt of the pass an original names as its source. */
export interface RecordedPassWire {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  verdict: string;
  input_content_hash: string | null;
  current_content_hash: string;
}

export interface MatchingPassWire {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  /** `input`: the pass compressed this original; `output`: the pass produced it. */
  relation: "input" | "output";
  verdict: string;
}
