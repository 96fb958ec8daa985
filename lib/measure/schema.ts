// JSON as a tree: a strict RFC 8259 parser of our own (iterative, so no depth breaks the stack,
// and keeping each number as written, which JSON.parse cannot), and required fields checked on the
// tree. The measurement itself reads JSON without a tree (json.ts); the tree is built only when
// there are required fields to check, or when an object repeats a key (the last value wins, in
// the place of the first, as a Map does).
import { JSON_NUMBER_ERRORS, jsonNumberEnd, readJsonString } from "./json-escape";

interface JNumber {
  num: string;
}
export type JValue = Map<string, JValue> | JValue[] | string | JNumber | boolean | null;

/**
 * The measurement reads JSON nested at most this deep, as the rest of Floorline does (request
 * values, OTLP attributes); deeper, the content is not JSON to it. Part of the method, and the
 * Python SDK holds the same bound: each member's key path is spelled out, so without a bound a
 * 600 KB nest of `{"a":{"a":…}}` costs memory with the square of its depth and took the server
 * down. With it, the paths spelled are at most 64 times the content's length.
 */
export const MAX_MEASURED_JSON_DEPTH = 64;
const TOO_DEEP = `nested deeper than ${MAX_MEASURED_JSON_DEPTH} levels`;

type Parsed = { ok: true; value: JValue } | { ok: false; error: string };

const isWs = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const isDigit = (c: number) => c >= 48 && c <= 57;

class JsonError extends Error {}

type Frame = { array: JValue[] } | { object: Map<string, JValue>; key: string };

export function parseJson(s: string): Parsed {
  let i = 0;
  const n = s.length;
  const fail = (what: string): never => {
    throw new JsonError(`${what} at offset ${i}`);
  };
  const ws = () => {
    while (i < n && isWs(s.charCodeAt(i))) i++;
  };
  const readString = (): string => {
    const read = readJsonString(s, i + 1);
    if (!read.ok) {
      i = read.at;
      return fail(read.error);
    }
    i = read.end;
    return read.text;
  };
  const readNumber = (): JNumber => {
    const end = jsonNumberEnd(s, i);
    if (end < 0) return fail(JSON_NUMBER_ERRORS[-end - 1] as string);
    const num = s.slice(i, end);
    i = end;
    return { num };
  };
  const readKey = (): string => {
    ws();
    if (s.charCodeAt(i) !== 34) fail("expected a string key");
    const key = readString();
    ws();
    if (s.charCodeAt(i) !== 58) fail("expected ':'");
    i++;
    return key;
  };
  const literal = (word: string, value: boolean | null) => {
    if (s.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail("unexpected character");
  };
  try {
    const stack: Frame[] = [];
    for (;;) {
      ws();
      let value: JValue;
      const c = s.charCodeAt(i);
      if (c === 123) {
        i++;
        ws();
        if (s.charCodeAt(i) === 125) {
          i++;
          value = new Map();
        } else {
          if (stack.length >= MAX_MEASURED_JSON_DEPTH) fail(TOO_DEEP);
          stack.push({ object: new Map(), key: readKey() });
          continue;
        }
      } else if (c === 91) {
        i++;
        ws();
        if (s.charCodeAt(i) === 93) {
          i++;
          value = [];
        } else {
          if (stack.length >= MAX_MEASURED_JSON_DEPTH) fail(TOO_DEEP);
          stack.push({ array: [] });
          continue;
        }
      } else if (c === 34) value = readString();
      else if (c === 45 || isDigit(c)) value = readNumber();
      else if (c === 116) value = literal("true", true);
      else if (c === 102) value = literal("false", false);
      else if (c === 110) value = literal("null", null);
      else return { ok: false, error: i >= n ? "unexpected end of input" : `unexpected character at offset ${i}` };
      // Attach the value to its container, closing every container that ends here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (!top) {
          ws();
          if (i !== n) fail("unexpected text after the value");
          return { ok: true, value };
        }
        ws();
        const next = s.charCodeAt(i);
        if ("array" in top) {
          top.array.push(value);
          if (next === 44) {
            i++;
            break;
          }
          if (next !== 93) fail("expected ',' or ']'");
          i++;
          value = top.array;
        } else {
          top.object.set(top.key, value);
          if (next === 44) {
            i++;
            top.key = readKey();
            break;
          }
          if (next !== 125) fail("expected ',' or '}'");
          i++;
          value = top.object;
        }
        stack.pop();
      }
    }
  } catch (error) {
    if (error instanceof JsonError) return { ok: false, error: error.message };
    throw error;
  }
}

/** JSON is looked for only where the text opens like a document: `{` or `[` after whitespace. */
export function opensLikeJson(s: string): boolean {
  let i = 0;
  while (i < s.length && isWs(s.charCodeAt(i))) i++;
  const c = s.charCodeAt(i);
  return c === 123 || c === 91;
}

/**
 * Whether a required field holds: dot paths, `[]` after a segment optional (a leading `[]`
 * is a document that is an array). Through an array the rest of the path must hold for every
 * item (an empty array holds); a segment of digits on an array indexes it.
 */
export function fieldHolds(root: JValue, field: string): boolean {
  const segments = field.split(".").map((s) => (s.endsWith("[]") ? s.slice(0, -2) : s));
  const stack: [JValue, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, at] = stack.pop() as [JValue, number];
    const segment = segments[at];
    if (segment === undefined) continue;
    // An empty segment ("[].id" on a document that is an array) is the value itself.
    if (segment === "") {
      stack.push([value, at + 1]);
      continue;
    }
    if (Array.isArray(value)) {
      if (segment.length > 0 && isAllDigits(segment)) {
        const index = Number(segment);
        if (index >= value.length) return false;
        stack.push([value[index] as JValue, at + 1]);
      } else for (const item of value) stack.push([item, at]);
      continue;
    }
    if (!(value instanceof Map) || !value.has(segment)) return false;
    stack.push([value.get(segment) as JValue, at + 1]);
  }
  return true;
}

function isAllDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}
