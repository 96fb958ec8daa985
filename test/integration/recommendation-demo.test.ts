// The demo's "search-results" class is there to show the recommendation: its three options
// must differ, and match the working in docs/recommendation.md (the chains: demo/search-agents.ts).
import { describe, expect, it } from "vitest";
import { GET as getRecommendation } from "@/app/api/v1/policies/[content_class]/recommendation/route";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call } from "./api-helpers";

setUpTestDatabase({ from: "demo" });

describe("demo recommendation", () => {
  it("recommends three different floors for search-results, none of which the floor in force matches", async () => {
    const answer = await call(
      getRecommendation,
      jsonRequest("/api/v1/policies/search-results/recommendation"),
      params({ content_class: "search-results" }),
    );
    expect(answer.status, answer.text).toBe(200);
    const { based_on, current, options } = answer.body;
    // Four careless agents were guarded (three restored, one halted at the size floor): saves,
    // not among the failures.
    expect(based_on).toMatchObject({ chains: 36, healthy: 22, guarded: 4, failures: 10 });
    expect(current).toMatchObject({ failures_caught: 0, failures_missed: 10, healthy_halted_early: 0 });
    const byName = Object.fromEntries(options.map((o: { name: string }) => [o.name, o]));
    // docs/recommendation.md works these out from the chains' measured sizes and densities.
    expect(byName.lenient).toMatchObject({
      policy: { min_size_bytes: 512, min_semantic_density: 0.36, max_pass_number: 10 },
      failures_caught: 1,
      healthy_halted_early: 0,
      compression_kept: 1,
    });
    expect(byName.balanced).toMatchObject({
      policy: { min_size_bytes: 700, min_semantic_density: 0.3, max_pass_number: 10 },
      failures_caught: 6,
      healthy_halted_early: 3,
    });
    expect(byName.strict).toMatchObject({
      policy: { min_size_bytes: 830, min_semantic_density: 0.3, max_pass_number: 10 },
      failures_caught: 8,
      failures_missed: 2,
      healthy_halted_early: 7,
    });
    expect(byName.strict.compression_kept).toBeLessThan(byName.balanced.compression_kept);
    expect(byName.balanced.compression_kept).toBeLessThan(1);
  });
});
