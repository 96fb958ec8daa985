// The evaluate endpoint's fast check must never accept what the schema refuses, nor answer
// differently from it: for any value it is null or exactly the schema's result.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateItemSchema, quickEvaluateItem } from "@/lib/schemas/guard";
import { SMALL_EVALUATE_ITEM } from "../support/evaluate-item";

const anyNumber = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 53 + 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 2 }),
  fc.constantFrom(0, 1, -0, 0.5, 1.0000001, 2 ** 53, 2 ** 53 - 1, Number.MAX_VALUE),
);
const anyText = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom("", "a\u0000b", "\ud800", "x".repeat(256), "x".repeat(257), "😀".repeat(200)),
);
const anyField = fc.oneof(anyNumber, anyText, fc.boolean(), fc.constant(null), fc.constant(undefined));
const pass = fc.record(
  {
    pass_id: fc.oneof(anyText, anyField),
    pass_number: fc.oneof(anyNumber, anyField),
    current_content_hash: fc.oneof(anyText, anyField),
    current_size_bytes: fc.oneof(anyNumber, anyField),
    is_parseable: fc.oneof(fc.boolean(), anyField),
    schema_valid: fc.oneof(fc.boolean(), anyField),
    semantic_density_score: fc.oneof(anyNumber, anyField),
    extra: anyField,
  },
  { requiredKeys: [] },
);
const policy = fc.record(
  {
    min_size_bytes: fc.oneof(anyNumber, anyField),
    min_semantic_density: fc.oneof(anyNumber, anyField),
    max_pass_number: fc.oneof(anyNumber, anyField),
  },
  { requiredKeys: [] },
);
const item = fc.oneof(fc.record({ pass, policy }), fc.record({ pass, policy: anyField }), anyField, fc.array(anyField));

const validItem = fc.record({
  pass: fc.record({
    pass_id: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes("\u0000")),
    pass_number: fc.nat(),
    current_content_hash: fc.string({ maxLength: 70 }).filter((s) => !s.includes("\u0000")),
    current_size_bytes: fc.nat(),
    is_parseable: fc.boolean(),
    schema_valid: fc.boolean(),
    semantic_density_score: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  policy: fc.record({
    min_size_bytes: fc.nat(),
    min_semantic_density: fc.double({ min: 0, max: 1, noNaN: true }),
    max_pass_number: fc.nat(),
  }),
});

describe("quickEvaluateItem", () => {
  it("is null or the schema's own result, for any value", () => {
    fc.assert(
      fc.property(item, (value) => {
        const quick = quickEvaluateItem(value);
        if (quick === null) return;
        const parsed = evaluateItemSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(quick).toStrictEqual(parsed.data);
      }),
      { numRuns: 5_000 },
    );
  });

  it("takes plainly valid items itself", () => {
    fc.assert(
      fc.property(validItem, (value) => {
        expect(quickEvaluateItem(value)).toStrictEqual(evaluateItemSchema.parse(value));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("quickEvaluateItem at the edges", () => {
  const base = SMALL_EVALUATE_ITEM;
  const edges: [string, string, unknown][] = [
    ["pass", "pass_number", -0],
    ["pass", "pass_number", 2 ** 53 - 1],
    ["pass", "pass_number", 2 ** 53],
    ["pass", "pass_number", 1.5],
    ["pass", "semantic_density_score", -0],
    ["pass", "semantic_density_score", 1],
    ["pass", "semantic_density_score", 1.0000001],
    ["pass", "pass_id", "x".repeat(256)],
    ["pass", "pass_id", "😀".repeat(256)],
    ["pass", "pass_id", "\ud800"],
    ["pass", "current_content_hash", "x".repeat(4097)],
    ["policy", "max_pass_number", -1],
    ["policy", "min_semantic_density", "0.5"],
  ];
  it.each(edges)("%s.%s = %j: null or the schema's result", (part, field, v) => {
    const value = { ...base, [part]: { ...base[part as "pass" | "policy"], [field]: v } };
    const quick = quickEvaluateItem(value);
    const parsed = evaluateItemSchema.safeParse(value);
    if (quick !== null) expect(quick).toStrictEqual(parsed.data);
    else if (parsed.success) expect(String(v).length).toBeGreaterThan(256);
  });
});
