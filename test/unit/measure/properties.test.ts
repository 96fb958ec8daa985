// Whatever the input: the same answer every time, a score in [0, 1] with at most four
// decimals, counts that add up, and no exception.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clearMeasureCache, MAX_LOST_EXAMPLES, measure, measureDetailed } from "@/lib/measure/index";
import { content, options } from "../../support/measure-arbitraries";
import { generatedCases, type MeasureCase } from "../../support/measure-cases";

describe("measure, on any input", () => {
  it("is deterministic, bounded and consistent", () => {
    fc.assert(
      fc.property(content, options, (content, opts) => {
        const originals = new Map([["a1b2c3d4e5f6a7b8", opts.source ?? ""]]);
        const a = measure(content, { ...opts, originals });
        const b = measure(content, { ...opts, originals });
        expect(b).toEqual(a);
        expect(a.semantic_density_score).toBeGreaterThanOrEqual(0);
        expect(a.semantic_density_score).toBeLessThanOrEqual(1);
        expect(Math.round(a.semantic_density_score * 10000) / 10000).toBe(a.semantic_density_score);
        expect(a.lost_examples.length).toBeLessThanOrEqual(MAX_LOST_EXAMPLES);
        if (a.facts) {
          expect(a.facts.retained + a.facts.recoverable + a.facts.lost).toBe(a.facts.in_source);
        } else expect(opts.source).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });
});

describe("measure, with whatever the lexicon already holds", () => {
  it("answers as it does from an empty lexicon", () => {
    const cases = generatedCases(1500, 11);
    const run = (c: MeasureCase) =>
      measureDetailed(c.content, {
        source: c.source ?? null,
        format: c.format ?? "any",
        requiredFields: c.required_fields ?? [],
        originals: c.originals ? new Map(Object.entries(c.originals)) : undefined,
      });
    // Warm: every case after all the ones before it. Cold: each from an empty lexicon.
    const warm = cases.map(run);
    cases.forEach((c, i) => {
      clearMeasureCache();
      expect(run(c), JSON.stringify(c).slice(0, 500)).toEqual(warm[i]);
    });
  }, 120_000);
});
