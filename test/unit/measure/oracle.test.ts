// The scanner rewrite of lib/measure against the string-token implementation it replaced
// (test/support/measure-oracle), field for field: every labelled chain, every worked example of
// docs/measurement.md, thousands of generated cases and large texts, logs and JSON.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { measureDetailed } from "@/lib/measure/index";
import { type MeasureCase, generatedCases } from "../../support/measure-cases";
import { measureDetailed as oracle } from "../../support/measure-oracle/index";

function run(measure: typeof measureDetailed, c: MeasureCase) {
  return measure(c.content, {
    source: c.source ?? null,
    format: c.format ?? "any",
    requiredFields: c.required_fields ?? [],
    originals: c.originals ? new Map(Object.entries(c.originals)) : undefined,
  });
}

function same(c: MeasureCase) {
  const got = run(measureDetailed, c);
  const want = run(oracle, c);
  expect(got, JSON.stringify(c).slice(0, 2000)).toEqual(want);
  // Equal numbers, and equal bits: the score's exact value, not a tolerance.
  expect(Object.is(got.semantic_density_score, want.semantic_density_score)).toBe(true);
}

const chains = JSON.parse(readFileSync("test/fixtures/measurement/chains.json", "utf8")).chains as {
  format: MeasureCase["format"];
  required_fields?: string[];
  source: string;
  passes: { content: string }[];
}[];

describe("the measurement agrees with the implementation it replaced", () => {
  it("on every labelled chain, with and without the source, and the source as base64", () => {
    for (const chain of chains) {
      const base = { format: chain.format, required_fields: chain.required_fields ?? [] };
      same({ content: chain.source, source: chain.source, ...base });
      same({ content: Buffer.from(chain.source).toString("base64"), source: chain.source, ...base, format: "base64" });
      for (const pass of chain.passes) {
        same({ content: pass.content, source: chain.source, ...base });
        same({ content: pass.content, source: null, ...base });
      }
    }
  });

  it("on every worked example of docs/measurement.md", () => {
    const page = readFileSync("docs/measurement.md", "utf8");
    const examples = [...page.matchAll(/```json example\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] ?? ""));
    expect(examples.length).toBeGreaterThan(5);
    for (const example of examples) same(example as MeasureCase);
  });

  it("on 4000 generated cases", () => {
    for (const c of generatedCases(4000)) same(c);
  }, 120_000);

  it("on large texts, logs and JSON", () => {
    const cases = generatedCases(400, 7);
    const big = (kind: number) =>
      cases
        .filter((_, i) => i % 8 === kind)
        .map((c) => c.content)
        .join("\n");
    const text = big(0) + big(1) + big(3);
    same({ content: text.slice(0, text.length >> 1), source: text, format: "text" });
    same({ content: text, source: null, format: "any" });
    const items = Array.from({ length: 400 }, (_, i) => ({
      sku: `SKU-${i % 37}`,
      qty: i % 5,
      note: `batch ${i % 11} of 4 GB`,
    }));
    const json = JSON.stringify({ order: "A-1", items });
    same({ content: JSON.stringify({ order: "A-1", items: items.slice(0, 150) }), source: json, format: "json" });
    same({ content: JSON.stringify({ items: [...items, ...items] }), source: json, format: "json" });
  }, 60_000);
});
