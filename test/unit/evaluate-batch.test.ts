// The evaluate endpoint's byte path must answer exactly what the general path answers (parse,
// validate with the schema, evaluate, JSON.stringify) for every batch it takes, byte for
// byte, and take nothing the general path would refuse. Batches are written the ways JSON
// can be written: any key order, whitespace, escapes, number spellings, plus corruptions.
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateBatchBytes } from "@/lib/guard/batch/evaluate";
import type { CompressionPass, CompressionPolicy } from "@/lib/guard/guard";
import { MAX_EVALUATE_BATCH } from "@/lib/schemas/guard";
import { SMALL_EVALUATE_ITEM } from "../support/evaluate-item";
import {
  asciiJson,
  batch,
  corrupt,
  expectSameAnswer,
  generalAnswer,
  nearlyValidItem,
  pythonDumps,
  unit,
  validItem,
  writer,
} from "../support/evaluate-batch";

describe("evaluateBatchBytes", () => {
  it("is null or the general path's answer, byte for byte, for any batch written any way", () => {
    let taken = 0;
    fc.assert(
      fc.property(batch, fc.integer(), (items, seed) => {
        const w = writer(seed);
        if (expectSameAnswer(`${w.space()}${w.value(items)}${w.space()}`)) taken++;
      }),
      { numRuns: 4_000 },
    );
    // Many of these batches are plainly valid: a byte path that took none would pass vacuously.
    expect(taken).toBeGreaterThan(500);
  });

  it("takes every plainly valid ASCII batch, however it is written", () => {
    fc.assert(
      fc.property(fc.array(validItem, { minLength: 1, maxLength: 6 }), fc.integer(), (items, seed) => {
        // Keys written plainly and once; values escaped or not, numbers spelt any way.
        const text = writer(seed, { plainKeys: true }).value(items);
        const taken = expectSameAnswer(text);
        if (generalAnswer(text) !== null) expect(taken).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it("is null or the general answer for corrupted batches", () => {
    fc.assert(
      fc.property(fc.array(validItem, { minLength: 1, maxLength: 3 }), fc.integer(), fc.integer(), (items, s1, s2) => {
        expectSameAnswer(corrupt(writer(s1).value(items), s2));
      }),
      { numRuns: 4_000 },
    );
  });

  it("reads items as JSON.stringify and Python's json.dumps lay them out, mixed with others", () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(validItem, nearlyValidItem), fc.constantFrom("js", "python", "other")), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer(),
        fc.integer(),
        fc.boolean(),
        (items, s1, s2, spoil) => {
          const other = writer(s1);
          const text = `[${items
            .map(([item, style]) =>
              style === "js"
                ? asciiJson(JSON.stringify(item))
                : style === "python"
                  ? pythonDumps(item)
                  : other.value(item),
            )
            .join(s1 % 2 ? ", " : ",")}]`;
          if (expectSameAnswer(spoil ? corrupt(text, s2) : text)) taken++;
        },
      ),
      { numRuns: 3_000 },
    );
    // About a tenth are taken (the rest hold a refused item, are spoilt, or both).
    expect(taken).toBeGreaterThan(150);
  });

  it("passes on what only the general path may answer", () => {
    const one = JSON.stringify(SMALL_EVALUATE_ITEM);
    expect(evaluateBatchBytes(Buffer.from(`[${one}]`))).not.toBeNull();
    for (const text of [
      "",
      " ",
      "[]",
      one,
      `[${one}`,
      `[${one},]`,
      `[${one}] x`,
      `[${one.replace('"p"', '"é"')}]`,
      `[${one.replace('"pass_number":2', '"pass_number":-0')}]`,
      `[${one.replace('"pass_number":2', '"pass_number":02')}]`,
      `[${one.replace('"pass_number":2', '"pass_number":2.5')}]`,
      `[${one.replace('"pass_id"', '"pass\\u005fid"')}]`,
      `[${one.replace('"pass_id":"p"', '"pass_id":"p","pass_id":"q"')}]`,
      `[${one.replace('"policy":{', '"note":1,"policy":{')}]`,
      `[${Array.from({ length: MAX_EVALUATE_BATCH + 1 }, () => one).join(",")}]`,
    ]) {
      expect(evaluateBatchBytes(Buffer.from(text))).toBeNull();
    }
    const full = `[${Array.from({ length: MAX_EVALUATE_BATCH }, () => one).join(",")}]`;
    expect(evaluateBatchBytes(Buffer.from(full))).not.toBeNull();
  });

  it("writes each gate's manifest from the body's bytes exactly as evaluatePass words it", () => {
    const base = SMALL_EVALUATE_ITEM;
    const ids = [
      "p",
      "a.b-c_d:e/f g",
      "x".repeat(256),
      "del\u007fhere",
      'quo"te',
      "back\\slash",
      "~!@#$%^&*()[]{}|;'<>,.?",
    ];
    const hashes = ["", "sha256:00ff", "h".repeat(4096), "del\u007f", 'q"h', "esc\\aped"];
    const big = 2 ** 53 - 1;
    const items = ids.flatMap((pass_id, i) =>
      [
        { pass_number: i % 2 },
        { pass_number: big, current_size_bytes: big },
        { is_parseable: false },
        { schema_valid: false },
        { current_size_bytes: 0 },
        { current_size_bytes: big, semantic_density_score: 0.005 },
        { current_size_bytes: 10 ** i, pass_number: 2 + i },
      ].map((change) => ({
        pass: { ...base.pass, pass_id, current_content_hash: hashes[i % hashes.length] as string, ...change },
        policy: { ...base.policy, max_pass_number: big - 1, min_size_bytes: 1 + i },
      })),
    );
    for (const text of [JSON.stringify(items), pythonDumps(items)]) expect(expectSameAnswer(text)).toBe(true);
  });

  it("formats densities near a rounding tie as Python does", () => {
    // Every multiple of 1/2000 lies at or near a tie at two or three digits, and so do the
    // doubles either side of it.
    const near = (x: number) => {
      const bits = new BigInt64Array(new Float64Array([x]).buffer);
      const at = (delta: bigint) =>
        new Float64Array(new BigInt64Array([(bits[0] as bigint) + delta]).buffer)[0] as number;
      return x === 0 ? [0, at(1n)] : [at(-1n), x, at(1n)];
    };
    const values = Array.from({ length: 2001 }, (_, k) => near(k / 2000))
      .flat()
      .filter((x) => x >= 0 && x <= 1);
    const items = values.flatMap((x) => [
      // Safe: the density to three digits, in the digest's payload.
      {
        pass: { ...SMALL_EVALUATE_ITEM.pass, semantic_density_score: x },
        policy: { ...SMALL_EVALUATE_ITEM.policy, min_semantic_density: 0 },
      },
      // Low density: the density and the floor to two digits, in the directive.
      {
        pass: { ...SMALL_EVALUATE_ITEM.pass, semantic_density_score: 0 },
        policy: { ...SMALL_EVALUATE_ITEM.policy, min_semantic_density: x || 1 },
      },
      {
        pass: { ...SMALL_EVALUATE_ITEM.pass, semantic_density_score: x },
        policy: { ...SMALL_EVALUATE_ITEM.policy, min_semantic_density: 1 },
      },
    ]);
    expect(items.length).toBeGreaterThan(15_000);
    for (let i = 0; i < items.length; i += MAX_EVALUATE_BATCH) {
      expect(expectSameAnswer(JSON.stringify(items.slice(i, i + MAX_EVALUATE_BATCH)))).toBe(true);
    }
  });

  it("answers the public reference vectors", () => {
    const cases: { pass: CompressionPass; policy: CompressionPolicy; expect: unknown }[] = JSON.parse(
      readFileSync(path.join(__dirname, "../fixtures/guard-public.json"), "utf8"),
    );
    // Some pass ids are not ASCII: escaped, as Python's json.dumps writes them by default.
    const body = JSON.stringify(cases.map((c) => ({ pass: c.pass, policy: c.policy }))).replace(/[^\p{ASCII}]/gu, unit);
    const answer = evaluateBatchBytes(Buffer.from(body));
    expect(answer).not.toBeNull();
    expect(JSON.parse((answer as Buffer).toString("utf8"))).toEqual(cases.map((c) => c.expect));
  });
});
