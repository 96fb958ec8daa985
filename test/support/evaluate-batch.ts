// What the evaluate byte path's tests share: the general path as the oracle, writers of JSON
// in every legal spelling, and the arbitraries of valid, odd and corrupted batches.
import fc from "fast-check";
import { expect } from "vitest";
import { evaluateBatchBytes } from "@/lib/guard/batch/evaluate";
import { evaluatePass } from "@/lib/guard/guard";
import { parseItems } from "@/lib/http/batch";
import {
  compressionPassShape,
  compressionPolicySchema,
  evaluateItemSchema,
  MAX_EVALUATE_BATCH,
} from "@/lib/schemas/guard";
import { seededRandom } from "./random";

/** The general path's answer for a body, or null where it answers an error. */
export function generalAnswer(text: string): string | null {
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
export function expectSameAnswer(text: string): boolean {
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
export function writer(seed: number, options: { plainKeys?: boolean } = {}) {
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
export function itemsHoldingCuts(n: number) {
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
export const asciiJson = (text: string) => text.replace(/[^\p{ASCII}]/gu, unit);

/** json.dumps(value) with Python's default separators `, ` and `: `. */
export function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([k, v]) => `${asciiJson(JSON.stringify(k))}: ${pythonDumps(v)}`);
    return `{${members.join(", ")}}`;
  }
  return asciiJson(JSON.stringify(value) ?? "null");
}

/** `\uXXXX` for each UTF-16 unit of `text` (a pair for a character past U+FFFF). */
export const unit = (text: string) =>
  Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

export const anyNumber = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 53 + 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 2 }),
  fc.constantFrom(0, 1, -0, 0.5, 0.125, 0.005, 1.0000001, 1e-7, 2 ** 53, 2 ** 53 - 1, Number.MAX_VALUE),
);
export const anyText = fc.oneof(
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
export const anyField = fc.oneof(anyNumber, anyText, fc.boolean(), fc.constant(null), fc.constant(undefined));
export const validPass = fc.record({
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
export const validPolicy = fc.record({
  min_size_bytes: fc.nat(),
  min_semantic_density: fc.double({ min: 0, max: 1, noNaN: true }),
  max_pass_number: fc.nat({ max: 12 }),
});
export const validItem = fc.record({ pass: validPass, policy: validPolicy });
export const oddPass = fc.record(
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
export const oddItem = fc.oneof(
  fc.record({ pass: oddPass, policy: validPolicy }),
  fc.record({ pass: validPass, policy: fc.oneof(anyField, validPolicy) }),
  fc.record({ pass: validPass, policy: validPolicy, note: anyField }),
  anyField,
);
// A valid item with one field set to a value at or past its edge.
export const edgeValue = fc.constantFrom<unknown>(
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
export const passFields = Object.keys(compressionPassShape) as (keyof typeof compressionPassShape)[];
export const policyFields = Object.keys(
  compressionPolicySchema.shape,
) as (keyof typeof compressionPolicySchema.shape)[];
export const nearlyValidItem = fc
  .tuple(validItem, fc.constantFrom(...passFields, ...policyFields), edgeValue)
  .map(([item, field, value]) =>
    (passFields as readonly string[]).includes(field)
      ? { ...item, pass: { ...item.pass, [field]: value } }
      : { ...item, policy: { ...item.policy, [field]: value } },
  );
export const batch = fc.oneof(
  { weight: 2, arbitrary: fc.array(fc.oneof(validItem, nearlyValidItem), { minLength: 1, maxLength: 4 }) },
  { weight: 3, arbitrary: fc.array(validItem, { minLength: 1, maxLength: 6 }) },
  { weight: 2, arbitrary: fc.array(fc.oneof(validItem, oddItem), { minLength: 0, maxLength: 6 }) },
);

// A few characters changed: mostly text that is not JSON, sometimes other valid JSON.
export function corrupt(text: string, seed: number): string {
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
