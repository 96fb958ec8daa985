import type { ContentFormat, DecodedFormat, DensitySource } from "../content-checks/formats";
import type { CompressionPolicy } from "./guard";

export interface PolicyInForce extends CompressionPolicy {
  content_class: string;
  /** 0 for the built-in default; stored versions start at 1. */
  version: number;
  required_fields: string[];
  /** How receipt content is parsed by the server-side checks. */
  format: ContentFormat;
  decoded_format: DecodedFormat | null;
  /** Whose density the chain follows: the client's claim, or the server's measurement. */
  density_source: DensitySource;
  description: string | null;
  /** Days this class's chains are kept; null follows FLOORLINE_RETENTION_DAYS. */
  retention_days: number | null;
  /** The share of a chain's planted canaries its passes must keep (docs/canaries.md); null: no floor. */
  min_canary_retention: number | null;
  /** Why this version was saved (null for the default and for versions saved without one). */
  note: string | null;
  created_at: string | null;
  /** Who saved a stored version (operator name, `key:<name>`, or the legacy token); null when unknown. */
  created_by?: string | null;
}

/**
 * The conservative floor for a content class with no policy of its own (decision boundary
 * step 2 of the reference: "If no, assume conservative floor"). Conservative means it
 * halts early: at least 256 bytes, density 0.5, and no more than 4 recursive passes.
 */
export const CONSERVATIVE_DEFAULT_POLICY: Readonly<CompressionPolicy> = Object.freeze({
  min_size_bytes: 256,
  min_semantic_density: 0.5,
  max_pass_number: 4,
});

export function defaultPolicyFor(contentClass: string): PolicyInForce {
  return {
    content_class: contentClass,
    version: 0,
    ...CONSERVATIVE_DEFAULT_POLICY,
    required_fields: [],
    format: "any",
    decoded_format: null,
    density_source: "client",
    description: "Built-in conservative default: this content class has no policy of its own.",
    retention_days: null,
    min_canary_retention: null,
    note: null,
    created_at: null,
  };
}
