// Whatever the input: the same answer every time, a score in [0, 1] with at most four
// decimals, counts that add up, and no exception.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clearMeasureCache, MAX_LOST_EXAMPLES, measure, measureDetailed } from "@/lib/measure/index";
import { generatedCases, type MeasureCase } from "../../support/measure-cases";

const pieces = fc.constantFrom(
  "Release 3.9.0",
  "(2026-05-02)",
  "May 2, 2026",
  "4 GB",
  "10,000 jobs",
  "#4412",
  "/v1/export",
  "https://example.com/x",
  "id=r1000",
  "ERROR",
  "2026-11-30T10:00:07Z",
  "hash=a1b2c3d4e5f6a7b8",
  "<<ccr:0123456789abcdef>>",
  "the",
  "various topics",
  ". ",
  "\n",
  '{"a": [1, {"b": "x"}]}',
  "{",
  "]",
  "\u00e9\u{1d11e}",
  "\ud800",
);
const text = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.array(pieces, { maxLength: 30 }).map((p) => p.join(" ")),
);
const format = fc.constantFrom("text", "json", "base64", "any") as fc.Arbitrary<"text" | "json" | "base64" | "any">;
const options = fc.record({
  source: fc.option(text, { nil: undefined }),
  format,
  requiredFields: fc.array(fc.constantFrom("a", "a.b", "items[].sku"), { maxLength: 2 }),
});

describe("measure, on any input", () => {
  it("is deterministic, bounded and consistent", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          text,
          text.map((t) => Buffer.from(t).toString("base64")),
        ),
        options,
        (content, opts) => {
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
        },
      ),
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
