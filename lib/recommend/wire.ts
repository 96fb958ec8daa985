// The wire shape of GET /api/v1/policies/{content_class}/recommendation, as the OpenAPI
// document (lib/openapi) describes it to clients.
import type { CompressionPolicy, Verdict } from "@/lib/guard/guard";
import type { PolicyInForce } from "@/lib/guard/policy";
import type { Movement } from "@/lib/chains/what-if";
import type { Outcome } from "./profile";
import type { Recommendation } from "./search";

export function recommendationBody(policy: PolicyInForce, recommendation: Recommendation) {
  return {
    content_class: policy.content_class,
    based_on: recommendation.based_on,
    current: {
      version: policy.version,
      policy: {
        min_size_bytes: policy.min_size_bytes,
        min_semantic_density: policy.min_semantic_density,
        max_pass_number: policy.max_pass_number,
      },
      ...recommendation.current,
    },
    options: recommendation.options.map((o) => ({
      name: o.name,
      policy: o.policy,
      failures_caught: o.failures_caught,
      failures_missed: o.failures_missed,
      healthy_halted_early: o.healthy_halted_early,
      compression_kept: o.compression_kept,
    })),
  };
}

/** What a proposed floor would have done to a class's recorded chains, beside the floor in force. */
export type FloorPreview =
  | {
      ok: true;
      chains: number;
      failures: number;
      healthy: number;
      /** Saves: counted with the healthy chains for halting early (lib/recommend/profile.ts). */
      guarded: number;
      inForce: Outcome;
      proposed: Outcome;
      movements: Record<Movement, number>;
    }
  | { ok: false; message: string };

export type PreviewFloor = (contentClass: string, floor: CompressionPolicy) => Promise<FloorPreview>;

/** The first pass of a chain that the guard would not have let through under a floor. */
export interface FloorHalt {
  pass_id: string;
  pass_number: number;
  verdict: Verdict;
  directive: string;
}

/** What one recommended floor would have done to a failing chain (the chain page's catches). */
export interface OptionCatch {
  name: string;
  policy: CompressionPolicy;
  caught: boolean;
  /** Where the guard would have stopped the chain under the option (null: never). */
  halt: FloorHalt | null;
}
