// The evaluate endpoint's byte path must answer exactly what the general path answers (parse,
// validate with the schema, evaluate, JSON.stringify) for every batch it takes, byte for
// byte, and take nothing the general path would refuse. Batches are written the ways JSON
// can be written: any key order, whitespace, escapes, number spellings, plus corruptions.
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateBatch, evaluateBatchBytes } from "@/lib/guard/batch/evaluate";
import { ArrivingBatch, evaluateInHalves, type OtherThread, splitBatch } from "@/lib/guard/batch/halves";
import { evaluatePass, type CompressionPass, type CompressionPolicy } from "@/lib/guard/guard";
import { parseItems } from "@/lib/http/batch";
import { evaluateItemSchema, MAX_EVALUATE_BATCH } from "@/lib/schemas/guard";
import { seededRandom } from "../support/random";
import { SMALL_EVALUATE_ITEM } from "../support/evaluate-item";

/** The general path's answer for a body, or null where it answers an error. */
function generalAnswer(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  try {
    const items = parseItems(value, evaluateItemSchema, null, MAX_EVALUATE_BATCH);
    return JSON.stringify(items.map((item) => evaluatePass(item.pass, item.policy)));
  } catch {
    return null;
  }
}

/** Null or exactly the general answer, in UTF-8; answers whether the byte path took it. */
function expectSameAnswer(text: string): boolean {
  const fast = evaluateBatchBytes(Buffer.from(text, "utf8"));
  if (fast === null) return false;
  const general = generalAnswer(text);
  expect(general).not.toBeNull();
  expect(fast.toString("utf8")).toBe(general);
  expect(fast.equals(Buffer.from(general as string, "utf8"))).toBe(true);
  return true;
}

// A JSON writer that makes the formatting choices a client's encoder might: whitespace,
// key order, escapes (all, some or none), and other spellings of the same number.
function writer(seed: number, options: { plainKeys?: boolean } = {}) {
  const random = seededRandom(seed);
  const pick = <T>(options: readonly T[]): T => options[Math.floor(random() * options.length)] as T;
  const space = () => (random() < 0.7 ? "" : pick([" ", "\n", "\t", "\r\n  ", "   "]));
  const escapeAll = random() < 0.3;
  const string = (s: string, key = false) => {
    let out = '"';
    for (const ch of s) {
      const code = ch.codePointAt(0) as number;
      if (code > 0xffff) {
        out +=
          escapeAll || random() < 0.5
            ? JSON.stringify(ch)
                .slice(1, -1)
                .replace(/[^\p{ASCII}]/gu, unit)
            : ch;
      } else if (ch === '"' || ch === "\\" || code < 0x20) out += JSON.stringify(ch).slice(1, -1);
      else if (ch === "/" && random() < 0.5) out += "\\/";
      else if (code > 0x7e || (escapeAll && !(key && options.plainKeys) && random() < 0.2)) out += unit(ch);
      else out += ch;
    }
    return `${out}"`;
  };
  const number = (n: number) => {
    if (!Number.isFinite(n)) return "null";
    const plain = JSON.stringify(n);
    if (random() < 0.6) return plain;
    if (Number.isInteger(n) && n >= 0 && n < 1e15)
      return pick([`${n}.0`, `${n}e0`, `${n}E+0`, `${n * 10}e-1`, `${n}.000`]);
    return pick([plain, plain.toUpperCase(), `${plain}0`, `${plain}e0`]);
  };
  const value = (v: unknown): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "string") return string(v);
    if (typeof v === "number") return number(v);
    if (typeof v === "boolean") return String(v);
    if (Array.isArray(v)) return `[${space()}${v.map((x) => value(x)).join(`${space()},${space()}`)}${space()}]`;
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (random() < 0.5) entries.sort(() => random() - 0.5);
    const members = entries.map(([k, x]) => `${string(k, true)}${space()}:${space()}${value(x)}`);
    // Now and then a key twice: JSON.parse keeps the last.
    if (!options.plainKeys && entries.length > 0 && random() < 0.05) {
      members.push(`${string(pick(entries)[0], true)}:${value(pick(entries)[1])}`);
    }
    return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
  };
  return { value, space };
}

/** `n` valid items whose strings hold the very bytes a cut looks for, in every position. */
function itemsHoldingCuts(n: number) {
  const ids = ['}},{"pass":{', "}},", 'a}},{"policy":{"x', "}}}},,"];
  return Array.from({ length: n }, (_, i) => ({
    pass: {
      pass_id: ids[i % ids.length] as string,
      pass_number: i,
      current_content_hash: "sha256:}},",
      current_size_bytes: 900,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.5,
    },
    policy: { min_size_bytes: 256, min_semantic_density: 0.3, max_pass_number: 6 },
  }));
}

/** JSON text with every character past ASCII escaped, as Python's json.dumps writes it by default. */
const asciiJson = (text: string) => text.replace(/[^\p{ASCII}]/gu, unit);

/** json.dumps(value) with Python's default separators `, ` and `: `. */
function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([k, v]) => `${asciiJson(JSON.stringify(k))}: ${pythonDumps(v)}`);
    return `{${members.join(", ")}}`;
  }
  return asciiJson(JSON.stringify(value) ?? "null");
}

/** `\uXXXX` for each UTF-16 unit of `text` (a pair for a character past U+FFFF). */
const unit = (text: string) =>
  Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

const anyNumber = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 53 + 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 2 }),
  fc.constantFrom(0, 1, -0, 0.5, 0.125, 0.005, 1.0000001, 1e-7, 2 ** 53, 2 ** 53 - 1, Number.MAX_VALUE),
);
const anyText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom(
    "",
    "a\u0000b",
    "\ud800",
    'q"uote',
    "back\\slash",
    "x".repeat(256),
    "x".repeat(257),
    "😀".repeat(129),
  ),
);
const anyField = fc.oneof(anyNumber, anyText, fc.boolean(), fc.constant(null), fc.constant(undefined));
const validPass = fc.record({
  pass_id: fc.oneof(
    fc.stringMatching(/^[a-z0-9._-]{1,40}$/),
    fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes("\u0000")),
  ),
  pass_number: fc.oneof(fc.nat({ max: 12 }), fc.nat()),
  current_content_hash: fc.string({ maxLength: 70 }).filter((s) => !s.includes("\u0000")),
  current_size_bytes: fc.nat(),
  is_parseable: fc.boolean(),
  schema_valid: fc.boolean(),
  semantic_density_score: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1, 0.125, 0.005)),
});
const validPolicy = fc.record({
  min_size_bytes: fc.nat(),
  min_semantic_density: fc.double({ min: 0, max: 1, noNaN: true }),
  max_pass_number: fc.nat({ max: 12 }),
});
const validItem = fc.record({ pass: validPass, policy: validPolicy });
const oddPass = fc.record(
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
const oddItem = fc.oneof(
  fc.record({ pass: oddPass, policy: validPolicy }),
  fc.record({ pass: validPass, policy: fc.oneof(anyField, validPolicy) }),
  fc.record({ pass: validPass, policy: validPolicy, note: anyField }),
  anyField,
);
// A valid item with one field set to a value at or past its edge.
const edgeValue = fc.constantFrom<unknown>(
  -1,
  -0,
  0,
  1,
  1.5,
  1.0000001,
  0.5,
  2 ** 53,
  2 ** 53 - 1,
  1e300,
  "1",
  "",
  "x".repeat(257),
  "\ud800",
  "a\u0000b",
  null,
  true,
);
const passFields = [
  "pass_id",
  "pass_number",
  "current_content_hash",
  "current_size_bytes",
  "is_parseable",
  "schema_valid",
  "semantic_density_score",
] as const;
const policyFields = ["min_size_bytes", "min_semantic_density", "max_pass_number"] as const;
const nearlyValidItem = fc
  .tuple(validItem, fc.constantFrom(...passFields, ...policyFields), edgeValue)
  .map(([item, field, value]) =>
    (passFields as readonly string[]).includes(field)
      ? { ...item, pass: { ...item.pass, [field]: value } }
      : { ...item, policy: { ...item.policy, [field]: value } },
  );
const batch = fc.oneof(
  { weight: 2, arbitrary: fc.array(fc.oneof(validItem, nearlyValidItem), { minLength: 1, maxLength: 4 }) },
  { weight: 3, arbitrary: fc.array(validItem, { minLength: 1, maxLength: 6 }) },
  { weight: 2, arbitrary: fc.array(fc.oneof(validItem, oddItem), { minLength: 0, maxLength: 6 }) },
);

// A few characters changed: mostly text that is not JSON, sometimes other valid JSON.
function corrupt(text: string, seed: number): string {
  const random = seededRandom(seed);
  let out = text;
  for (let n = 1 + Math.floor(random() * 2); n > 0; n--) {
    const at = Math.floor(random() * (out.length + 1));
    const cut = Math.floor(random() * 3);
    const insert = ["", ",", "]", "}", '"', "\\", "-", "0", "e", " ", "\u0000", "é", "{}", "null"][
      Math.floor(random() * 14)
    ];
    out = out.slice(0, at) + insert + out.slice(at + cut);
  }
  return out;
}

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

// The second half evaluated in this thread: the same code the worker thread runs.
const here: OtherThread = { ready: () => true, evaluate: async (half) => evaluateBatch(half) };

/** Other threads that give no answer: never ready (asked() counts what it was asked anyway), failing, empty. */
function unhelpfulThreads() {
  let asked = 0;
  const notReady: OtherThread = {
    ready: () => false,
    evaluate: async (half) => {
      asked++;
      return evaluateBatch(half);
    },
  };
  const failing: OtherThread = { ready: () => true, evaluate: () => Promise.reject(new Error("worker gone")) };
  const empty: OtherThread = { ready: () => true, evaluate: async () => null };
  return { notReady, failing, empty, asked: () => asked };
}

describe("evaluateInHalves", () => {
  /** The halves' answer, which must be the whole body's; answers whether the halves were used. */
  async function expectSameAsWhole(text: string, second: OtherThread = here): Promise<boolean> {
    const body = Buffer.from(text, "utf8");
    const halves = await evaluateInHalves(body, second, 0);
    const whole = evaluateBatchBytes(body);
    expect(halves?.bytes.toString("utf8") ?? null).toBe(whole?.toString("utf8") ?? null);
    return halves?.split ?? false;
  }

  it("answers what the whole batch answers, for any batch written any way, corrupted or not", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(batch, fc.integer(), fc.integer(), fc.boolean(), async (items, s1, s2, spoil) => {
        const text = writer(s1).value(items);
        if (await expectSameAsWhole(spoil ? corrupt(text, s2) : text)) split++;
      }),
      { numRuns: 3_000 },
    );
    // Some of these are cut and answered from their halves (most are one item, spaced or spoilt).
    expect(split).toBeGreaterThan(20);
  });

  it("answers compact batches from their halves, as clients write them", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(validItem, { minLength: 2, maxLength: 8 }), async (items) => {
        // JSON.stringify's spelling, non-ASCII escaped as Python's json.dumps writes it.
        if (await expectSameAsWhole(JSON.stringify(items).replace(/[^\p{ASCII}]/gu, unit))) split++;
      }),
      { numRuns: 1_000 },
    );
    expect(split).toBeGreaterThan(500);
  });

  it("uses no half cut inside a string, wherever the cut falls", async () => {
    for (let n = 2; n <= 9; n++) {
      const items = itemsHoldingCuts(n);
      await expectSameAsWhole(JSON.stringify(items));
      await expectSameAsWhole(JSON.stringify(items, null, 1));
    }
  });

  it("cuts between two items, and each half is a batch", () => {
    const item = (i: number) =>
      `{"pass":{"pass_id":"p${i}","pass_number":${i},"current_content_hash":"h","current_size_bytes":1,"is_parseable":true,"schema_valid":true,"semantic_density_score":0.5},"policy":{"min_size_bytes":1,"min_semantic_density":0.2,"max_pass_number":4}}`;
    const body = `[${Array.from({ length: 10 }, (_, i) => item(i)).join(",")}]`;
    const [a, b] = splitBatch(Buffer.from(body)) ?? [];
    expect(a?.toString()).toBe(`[${Array.from({ length: 6 }, (_, i) => item(i)).join(",")}]`);
    expect(b?.toString()).toBe(`[${Array.from({ length: 4 }, (_, i) => item(i + 6)).join(",")}]`);
    expect(splitBatch(Buffer.from(`[${item(0)}]`))).toBeNull();
  });

  it("evaluates the whole batch here when the other thread is not ready, fails or answers nothing", async () => {
    const text = JSON.stringify(
      Array.from({ length: 40 }, (_, i) => ({
        pass: {
          pass_id: `p${i}`,
          pass_number: i % 9,
          current_content_hash: "sha256:ab",
          current_size_bytes: 100 * i,
          is_parseable: true,
          schema_valid: i % 7 !== 0,
          semantic_density_score: (i % 10) / 10,
        },
        policy: { min_size_bytes: 256, min_semantic_density: 0.3, max_pass_number: 6 },
      })),
    );
    const { notReady, failing, empty, asked } = unhelpfulThreads();
    expect(await expectSameAsWhole(text)).toBe(true);
    for (const second of [notReady, failing, empty]) expect(await expectSameAsWhole(text, second)).toBe(false);
    expect(asked()).toBe(0);
    // Below the size worth a second thread, the batch stays whole.
    expect((await evaluateInHalves(Buffer.from(text), here))?.split).toBe(false);
  });

  it("refuses a batch over the limit even when each half is under it", async () => {
    const one = JSON.stringify(SMALL_EVALUATE_ITEM);
    const over = Buffer.from(`[${Array.from({ length: MAX_EVALUATE_BATCH + 1 }, () => one).join(",")}]`);
    const [a, b] = splitBatch(over) ?? [];
    expect(a && evaluateBatch(a)).not.toBeNull();
    expect(b && evaluateBatch(b)).not.toBeNull();
    expect(await evaluateInHalves(over, here, 0)).toBeNull();
    const full = Buffer.from(`[${Array.from({ length: MAX_EVALUATE_BATCH }, () => one).join(",")}]`);
    expect((await evaluateInHalves(full, here, 0))?.split).toBe(true);
  });
});

describe("ArrivingBatch", () => {
  /** The body in chunks cut at `cuts` (fractions), fed as they would arrive. */
  async function arriving(text: string, cuts: number[], second: OtherThread = here, declared?: number) {
    const body = Buffer.from(text, "utf8");
    const batch = new ArrivingBatch(declared ?? body.byteLength, second, 0);
    let from = 0;
    for (const cut of [...cuts.sort(), 1]) {
      const to = Math.floor(cut * body.byteLength);
      if (to > from) batch.take(body.subarray(from, to));
      from = Math.max(from, to);
    }
    return batch.finish(body);
  }

  /** Its answer, which must be the whole body's; answers whether the parts were used. */
  async function expectSameAsWhole(text: string, cuts: number[], second: OtherThread = here): Promise<boolean> {
    const answer = await arriving(text, cuts, second);
    expect(answer?.bytes.toString("utf8") ?? null).toBe(
      evaluateBatchBytes(Buffer.from(text))?.toString("utf8") ?? null,
    );
    return answer?.split ?? false;
  }

  const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

  it("answers what the whole batch answers, however it arrives, for any batch, corrupted or not", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(batch, cuts, fc.integer(), fc.integer(), fc.boolean(), async (items, at, s1, s2, spoil) => {
        const text = writer(s1).value(items);
        if (await expectSameAsWhole(spoil ? corrupt(text, s2) : text, at)) split++;
      }),
      { numRuns: 3_000 },
    );
    expect(split).toBeGreaterThan(20);
  });

  it("answers compact batches from their two parts, as clients write them", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(validItem, { minLength: 2, maxLength: 8 }), cuts, async (items, at) => {
        if (await expectSameAsWhole(asciiJson(JSON.stringify(items)), at)) split++;
      }),
      { numRuns: 1_000 },
    );
    expect(split).toBeGreaterThan(300);
  });

  it("uses no cut inside a string, wherever the chunks end", async () => {
    for (let n = 2; n <= 7; n++) {
      const items = itemsHoldingCuts(n);
      for (let k = 1; k < 40; k++) await expectSameAsWhole(JSON.stringify(items), [k / 40]);
    }
  });

  it("sends the items received so far to the other thread, and evaluates the rest here", async () => {
    const text = JSON.stringify(
      Array.from({ length: 10 }, (_, i) => ({
        ...SMALL_EVALUATE_ITEM,
        pass: { ...SMALL_EVALUATE_ITEM.pass, pass_id: `p${i}` },
      })),
    );
    const sent: string[] = [];
    const recording: OtherThread = {
      ready: () => true,
      evaluate: async (part) => {
        sent.push(part.toString());
        return evaluateBatch(part);
      },
    };
    // The first chunk ends inside the seventh item: six items go.
    const seventh = text.indexOf('"p6"');
    expect((await arriving(text, [seventh / text.length], recording))?.split).toBe(true);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0] as string)).toEqual(JSON.parse(text).slice(0, 6));
  });

  it("evaluates the batch here when the length is unknown or the other thread is not ready, fails or answers nothing", async () => {
    const text = JSON.stringify(Array.from({ length: 12 }, () => SMALL_EVALUATE_ITEM));
    const { notReady, failing, empty, asked } = unhelpfulThreads();
    // One that throws while the body is being read: the reading goes on, and the batch is whole.
    let throws = 0;
    const throwing: OtherThread = {
      ready: () => {
        if (throws++ === 0) throw new Error("no thread");
        return false;
      },
      evaluate: async () => null,
    };
    for (const second of [notReady, failing, empty, throwing]) {
      expect(await expectSameAsWhole(text, [0.6], second)).toBe(false);
    }
    expect(throws).toBe(2);
    expect(asked()).toBe(0);
    // With no declared length, the batch is cut in halves once whole, as evaluateInHalves cuts it.
    expect((await arriving(text, [0.6], here, Number.NaN))?.split).toBe(true);
    // Below the size worth a second thread, it stays whole.
    const small = new ArrivingBatch(text.length, here);
    small.take(Buffer.from(text));
    expect((await small.finish(Buffer.from(text)))?.split).toBe(false);
  });

  it("refuses a batch over the limit even when each part is under it", async () => {
    const one = JSON.stringify(SMALL_EVALUATE_ITEM);
    const over = `[${Array.from({ length: MAX_EVALUATE_BATCH + 1 }, () => one).join(",")}]`;
    expect(await arriving(over, [0.5])).toBeNull();
    const full = `[${Array.from({ length: MAX_EVALUATE_BATCH }, () => one).join(",")}]`;
    expect((await arriving(full, [0.5]))?.split).toBe(true);
  });
});
