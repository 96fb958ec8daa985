// The pass ingest's fast path must be invisible: quickPassReceipt accepts only receipts the
// schema accepts, with the schema's exact output, and passReceiptDigest is bodyDigest.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bodyDigest } from "@/lib/guard/canonical";
import { VERDICTS } from "@/lib/guard/guard";
import { timestampSchema } from "@/lib/schemas/common";
import { PASS_RECEIPT_FIELDS, passReceiptDigest, passReceiptSchema, quickPassReceipt } from "@/lib/schemas/passes";

const valid = {
  chain_id: "chain-1",
  pass_id: "chain-1/p-2",
  pass_number: 2,
  input_content_hash: "a".repeat(64),
  current_content_hash: "b".repeat(64),
  current_size_bytes: 12_345,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.42,
  content_class: "json",
  created_at: "2026-01-01T00:00:00.007Z",
  metadata: { agent: "a", tokens: 3, nested: { list: [1, "x", null] } },
  verdict: "SAFE_TO_COMPRESS",
  manifest_digest: "c".repeat(64),
};

/** The schema's answer, or null when it refuses. */
function schemaAnswer(value: unknown) {
  const result = passReceiptSchema.safeParse(value);
  return result.success ? result.data : null;
}

function expectSameAsSchema(value: unknown) {
  const quick = quickPassReceipt(value);
  if (quick === null) return;
  const schema = schemaAnswer(value);
  expect(schema, JSON.stringify(value)).not.toBeNull();
  // Key order too: the stored metadata and every later reader see the same object.
  expect(JSON.stringify(quick)).toBe(JSON.stringify(schema));
  expect(quick).toStrictEqual(schema);
}

// Texts near every limit: empty, long, surrogate pairs (more UTF-16 units than code points),
// lone surrogates, NUL, quotes and backslashes.
const awkwardText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("", "\u0000", "a\u0000b", "\ud800", "x\udc00", '"\\', "\n\t", "😀".repeat(200), "é".repeat(300)),
  fc.integer({ min: 250, max: 600 }).map((n) => "h".repeat(n)),
);
const timestamps = fc.oneof(
  fc
    .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:00+14:00",
    "2026-01-01T00:00:00-23:59",
    "2026-01-01T00:00:00+24:00",
    "2026-01-01T24:00:00Z",
    "2000-02-29T12:00:00Z",
    "1900-02-29T12:00:00Z",
    "2026-02-30T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999Z",
    "9999-12-31T23:59:59.9999Z",
    "2026-01-01T00:00:00.123456789Z",
    "2026-01-01T00:00Z",
    "2026-01-01 00:00:00Z",
    "2026-01-01T00:00:00",
    "+002026-01-01T00:00:00Z",
  ),
  fc.string({ maxLength: 30 }),
);
const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 4, arbitrary: arb },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
const numbers = fc.oneof(
  fc.integer({ min: -5, max: 1_000_000 }),
  fc.double({ min: -1, max: 2 }),
  fc.constantFrom(-0, 0, 1, 2 ** 53 - 1, 2 ** 53, 1e-7, 0.5, Number.MAX_VALUE),
);
const json = fc.jsonValue({ maxDepth: 3 });
const metadata = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 5 }),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "kept": 1}')),
  fc.constant({ big: "m".repeat(17 * 1024) }),
  fc.constant({ bad: "\u0000" }),
  fc.constant([1, 2]),
  json,
);

// A valid receipt with each field, now and then, replaced by something awkward or dropped.
const mutated = <T>(good: T, arb: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(good) }, { weight: 1, arbitrary: arb });
const fields = {
  chain_id: mutated(valid.chain_id, maybe(fc.oneof(fc.constant(valid.chain_id), awkwardText))),
  pass_id: mutated(valid.pass_id, maybe(fc.oneof(fc.constant(valid.pass_id), awkwardText))),
  pass_number: mutated(valid.pass_number, maybe(numbers)),
  input_content_hash: mutated(valid.input_content_hash, maybe(awkwardText)),
  current_content_hash: mutated(
    valid.current_content_hash,
    maybe(fc.oneof(fc.constant(valid.current_content_hash), awkwardText)),
  ),
  current_size_bytes: mutated(valid.current_size_bytes, maybe(numbers)),
  is_parseable: mutated(valid.is_parseable, maybe(fc.oneof(fc.boolean(), fc.constantFrom(0, 1, "true")))),
  schema_valid: mutated(valid.schema_valid, maybe(fc.oneof(fc.boolean(), fc.constantFrom(0, "false")))),
  semantic_density_score: mutated(valid.semantic_density_score, maybe(numbers)),
  content_class: mutated(
    valid.content_class,
    maybe(fc.oneof(fc.constantFrom("json", "default", "a.b:c-d_e", "-bad", "", "x".repeat(65)), awkwardText)),
  ),
  created_at: mutated(valid.created_at, maybe(timestamps)),
  metadata: mutated(valid.metadata, maybe(metadata)),
  verdict: mutated(valid.verdict, maybe(fc.oneof(fc.constantFrom(...VERDICTS), fc.constantFrom("safe", "")))),
  manifest_digest: mutated(valid.manifest_digest, maybe(awkwardText)),
  content: maybe(awkwardText),
  input_content: maybe(awkwardText),
  cache_original: maybe(fc.oneof(fc.boolean(), fc.constant("yes"))),
  canaries: maybe(
    fc.oneof(
      fc.constant([{ id: "cn-1", kind: "number", text: "482137" }]),
      fc.constant([
        { id: "cn-1", kind: "hash", text: "a" },
        { id: "cn-1", kind: "path", text: "b" },
      ]),
      fc.array(
        fc.record(
          {
            id: fc.oneof(fc.constant("cn-2"), awkwardText),
            kind: fc.constantFrom("number", "path", "hash", "error", "fact"),
            text: fc.oneof(fc.constant("ERR_LEASE_4821"), awkwardText),
            extra: fc.constant(1),
          },
          { requiredKeys: ["kind"] },
        ),
        { maxLength: 18 },
      ),
    ),
  ),
  canary_check: maybe(
    fc.oneof(
      fc.constant({ surviving: ["cn-1"], checked_text_bytes: 12 }),
      fc.record(
        {
          surviving: fc.array(fc.oneof(fc.constant("cn-1"), awkwardText), { maxLength: 3 }),
          checked_text_bytes: numbers,
        },
        { requiredKeys: [] },
      ),
      fc.constant({ surviving: [], checked_text_bytes: 1, extra: 1 }),
    ),
  ),
  context_tools: maybe(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(["floorline_retrieve", "bash"], []) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          Array.from({ length: 65 }, (_, i) => `t${i}`),
          Array.from({ length: 64 }, (_, i) => `t${i}`),
          ["x".repeat(129)],
          ["x".repeat(128)],
          "bash",
        ),
      },
      {
        weight: 1,
        arbitrary: fc.array(fc.oneof(fc.constant("read_file"), awkwardText, fc.constant(1)), { maxLength: 4 }),
      },
    ),
  ),
  extra: maybe(fc.jsonValue({ maxDepth: 1 })),
};
const receipts = fc.record(fields, { requiredKeys: [] });

describe("quickPassReceipt", () => {
  it("is tried below on every field a receipt declares", () => {
    expect(PASS_RECEIPT_FIELDS.filter((field) => !(field in fields))).toEqual([]);
  });

  it("answers a well-formed receipt as the schema does", () => {
    const quick = quickPassReceipt(valid);
    expect(quick).not.toBeNull();
    expectSameAsSchema(valid);
    const minimal = { ...valid } as Record<string, unknown>;
    for (const k of ["input_content_hash", "content_class", "created_at", "metadata", "verdict", "manifest_digest"])
      delete minimal[k];
    expect(quickPassReceipt(minimal)?.content_class).toBe("default");
    expectSameAsSchema(minimal);
    expectSameAsSchema({ ...valid, input_content_hash: null, verdict: null, extra: [1] });
  });

  it("never accepts what the schema refuses, and answers exactly as it does (random receipts)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(receipts, (r) => {
        const value = JSON.parse(JSON.stringify(r));
        if (quickPassReceipt(value)) accepted++;
        expectSameAsSchema(value);
      }),
      { numRuns: 5_000 },
    );
    // Mostly invalid by construction; enough valid ones that the comparison means something.
    // Fifteen runs of 5,000 (each with its own seed) accepted 20 to 45: "more than 20" failed
    // in CI at 18. Five or fewer would mean the generator stopped making valid receipts.
    expect(accepted).toBeGreaterThan(5);
  });

  it("checks timestamps exactly as the schema does", () => {
    fc.assert(
      fc.property(timestamps, (t) => {
        expectSameAsSchema({ ...valid, created_at: t });
        const quick = quickPassReceipt({ ...valid, created_at: t });
        if (timestampSchema.safeParse(t).success) expect(quick?.created_at).toBe(t);
        else expect(quick).toBeNull();
      }),
      { numRuns: 3_000 },
    );
  });

  it("drops a __proto__ key of the metadata as the schema does", () => {
    const value = JSON.parse(`{"chain_id":"c","pass_id":"p","pass_number":1,"current_content_hash":"h",
      "current_size_bytes":1,"is_parseable":true,"schema_valid":true,"semantic_density_score":0.5,
      "metadata":{"__proto__":{"x":1},"k":2}}`);
    expectSameAsSchema(value);
    expect(Object.keys(quickPassReceipt(value)?.metadata ?? {})).toEqual(["k"]);
  });
});

describe("passReceiptDigest", () => {
  it("is bodyDigest of every receipt the schema answers", () => {
    let compared = 0;
    fc.assert(
      fc.property(receipts, (r) => {
        const parsed = schemaAnswer(JSON.parse(JSON.stringify(r)));
        if (!parsed) return;
        compared++;
        expect(passReceiptDigest(parsed)).toBe(bodyDigest(parsed));
      }),
      { numRuns: 5_000 },
    );
    // Not vacuous: the schema answers some of the generated receipts (24 to 43 of 5,000 in six
    // runs, 19 in one CI run: the bound is a floor, not an expected count).
    expect(compared).toBeGreaterThanOrEqual(5);
  });

  it("is bodyDigest of objects built in code: extra fields, nulls, undefined", () => {
    const cases: Record<string, unknown>[] = [
      { ...valid },
      { ...valid, extra: 1 },
      { ...valid, input_content_hash: null },
      { ...valid, verdict: undefined },
      { ...valid, metadata: { b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } } },
      { ...valid, 0: "index key" },
      { ...valid, created_at: new Date("2026-01-01T00:00:00Z") },
    ];
    for (const c of cases) expect(passReceiptDigest(c as never), JSON.stringify(c)).toBe(bodyDigest(c));
  });
});
