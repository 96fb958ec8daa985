import { z } from "zod";

// Postgres text cannot hold NUL and UTF-8 cannot hold a lone surrogate: refuse both at the edge
// rather than fail inside the database.
/** Whether PostgreSQL can store (and compare) this text: no NUL, no unpaired surrogate. */
export const isStorableText = (value: string) => !value.includes("\u0000") && value.isWellFormed();
const storable = isStorableText;
export const STORABLE_MESSAGE = "must not contain NUL characters or unpaired surrogates";

// Code points, counted without building an array: a string has at least half as many code
// points as UTF-16 units and at most as many, so most strings never need counting.
function codePointCount(v: string): number {
  let n = v.length;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** A string the database can store, measured in code points (as Python's len()). */
export function text(options: { min?: number; max: number }) {
  const min = options.min ?? 0;
  return z
    .string()
    .refine(storable, STORABLE_MESSAGE)
    .refine(
      (v) => v.length >= 2 * min || codePointCount(v) >= min,
      min === 1 ? "must not be empty" : `must be at least ${min} characters`,
    )
    .refine(
      (v) => v.length <= options.max || codePointCount(v) <= options.max,
      `must be at most ${options.max} characters`,
    );
}

/** Integers on the wire: JSON numbers within ±(2^53 - 1); fractions and numeric strings are invalid. */
export const nonNegativeInt = z.int().min(0);

export const unitInterval = z.number().min(0).max(1);

// Postgres has no year 0 (the regex admits "0000") and JavaScript prints years past 9999
// with a sign that Postgres cannot read back, so both ends are refused here.
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

export const timestampSchema = z.iso
  .datetime({ offset: true, message: "must be an RFC 3339 timestamp", abort: true })
  .refine((v) => {
    const at = Date.parse(v);
    return at >= EARLIEST && at <= LATEST;
  }, "must be an RFC 3339 timestamp between the years 0001 and 9999 (UTC)");

/**
 * For the optional `keys` of an object schema, null and absent mean the same: nulls are
 * dropped before parsing, so a retry that spells a field the other way has the same body
 * (and the same idempotency digest).
 */
export function nullMeansAbsent<T extends z.ZodType>(keys: readonly string[], schema: T) {
  return z.preprocess((value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([key, v]) => !(v === null && keys.includes(key))));
  }, schema);
}

export const MAX_JSON_DEPTH = 64;

/**
 * Walks a parsed JSON value without recursion: a 10 MiB body can nest millions deep, and
 * a recursive walk (or JSON.stringify) would overflow the stack and answer 500.
 */
function jsonProblem(root: unknown): string | null {
  const stack: Array<[value: unknown, depth: number]> = [[root, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, depth] = top;
    if (typeof value === "string") {
      if (!storable(value)) return STORABLE_MESSAGE;
    } else if (value !== null && typeof value === "object") {
      if (depth >= MAX_JSON_DEPTH) return `must be nested at most ${MAX_JSON_DEPTH} levels deep`;
      for (const [k, v] of Object.entries(value)) {
        if (!storable(k)) return STORABLE_MESSAGE;
        stack.push([v, depth + 1]);
      }
    }
  }
  return null;
}

/** A free-form JSON object of bounded size, storable as jsonb. */
export function jsonObject(maxBytes: number) {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const problem = jsonProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
    else if (Buffer.byteLength(JSON.stringify(value), "utf8") > maxBytes) {
      ctx.addIssue({ code: "custom", message: `must be at most ${maxBytes / 1024} KiB as JSON` });
    }
  });
}

/** Content classes appear in URLs (`/policies/{content_class}`): keep them to a safe alphabet. */
export const contentClassSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    "must be 1-64 characters of letters, digits, '.', '_', ':' or '-', starting with a letter or digit",
  );

export const chainIdSchema = text({ min: 1, max: 256 });

// ---------------------------------------------------------------------------------------
// Answers. Their schemas feed the OpenAPI document, and the contract test validates live
// answers against it, so a field that changes here or in a handler without the other fails a
// test. Objects are closed (extra fields are a test failure, not a silent drift); fields
// that a handler may omit are optional.

/** A timestamp as answers write it. */
export const utcTimestamp = z.string().describe("RFC 3339, UTC");

/** `{"items": [...], "next_cursor": string | null}`, the shape of every list. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

/** Dot paths a JSON content must hold (a policy's, or a measurement's): `a.b`, `items[].sku`. */
export const requiredFieldsSchema = z.array(text({ min: 1, max: 256 })).max(256);
