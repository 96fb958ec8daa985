// The wire shape of GET /api/v1/policies/{content_class}/recommendation (shared/API.md,
// "Floor recommendation").
import type { PolicyInForce } from "@/lib/policy";
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
