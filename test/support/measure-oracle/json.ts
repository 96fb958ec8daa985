// JSON: a strict RFC 8259 parser of our own (iterative, so no depth breaks it, and keeping
// each number as written, which JSON.parse cannot), the document's leaves with their key
// paths, and required fields. Array indices fold into `[]`: `items[].sku` is one path, and
// every item of the array is one record of it.
import { CONTEXT_WEIGHT, type FactIndex, type FactSet } from "./facts";
import { addTextFacts, analyseText, type TextDoc, tokenSpecificity } from "./text";
import { asciiLower, classify, type Token, utf8Length } from "./tokens";

export interface JNumber {
  num: string;
}
export type JValue = Map<string, JValue> | JValue[] | string | JNumber | boolean | null;

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
    i++;
    let out = "";
    let from = i;
    for (;;) {
      if (i >= n) fail("unterminated string");
      const c = s.charCodeAt(i);
      if (c === 34) {
        out += s.slice(from, i);
        i++;
        return out;
      }
      if (c < 32) fail("control character in string");
      if (c !== 92) {
        i++;
        continue;
      }
      out += s.slice(from, i);
      const e = s.charCodeAt(i + 1);
      i += 2;
      if (e === 117) {
        let code = 0;
        for (let k = 0; k < 4; k++) {
          const h = s.charCodeAt(i + k);
          const d = isDigit(h) ? h - 48 : h >= 97 && h <= 102 ? h - 87 : h >= 65 && h <= 70 ? h - 55 : -1;
          if (d < 0) fail("bad \\u escape");
          code = code * 16 + d;
        }
        out += String.fromCharCode(code);
        i += 4;
      } else {
        const simple =
          e === 34
            ? '"'
            : e === 92
              ? "\\"
              : e === 47
                ? "/"
                : e === 98
                  ? "\b"
                  : e === 102
                    ? "\f"
                    : e === 110
                      ? "\n"
                      : e === 114
                        ? "\r"
                        : e === 116
                          ? "\t"
                          : null;
        if (simple === null) fail("bad escape");
        out += simple;
      }
      from = i;
    }
  };
  const readNumber = (): JNumber => {
    const start = i;
    if (s.charCodeAt(i) === 45) i++;
    if (s.charCodeAt(i) === 48) i++;
    else if (isDigit(s.charCodeAt(i))) while (i < n && isDigit(s.charCodeAt(i))) i++;
    else fail("bad number");
    if (s.charCodeAt(i) === 46) {
      i++;
      if (!isDigit(s.charCodeAt(i))) fail("bad fraction");
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    }
    if (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69) {
      i++;
      if (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45) i++;
      if (!isDigit(s.charCodeAt(i))) fail("bad exponent");
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    }
    return { num: s.slice(start, i) };
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

// --- leaves ---

export interface Leaf {
  path: string;
  last: string;
  /** Canonical value: strings trimmed and ASCII lower-cased, numbers as in the text reader. */
  value: string;
  /** As written, for examples. */
  raw: string;
  kind: "string" | "number" | "boolean" | "null";
  tokens: Token[];
  doc: TextDoc | null;
}

export interface JsonDoc {
  root: JValue;
  leaves: Leaf[];
  /** Paths of object members, in document order, one entry per member met. */
  members: { path: string; last: string }[];
  emptyContainers: number;
}

/** Strings of more tokens than this are prose: their facts count one by one, not as one value. */
const SHORT_STRING_TOKENS = 8;

function canonicalNumber(lexeme: string): string {
  const read = classify(lexeme, false, false)[0];
  const key = read?.kind === "number" ? read.need[0] : undefined;
  return key ? key.slice(2) : asciiLower(lexeme);
}

const isNumber = (v: JValue): v is JNumber =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Map);

export function analyseJson(root: JValue): JsonDoc {
  const leaves: Leaf[] = [];
  const members: { path: string; last: string }[] = [];
  let emptyContainers = 0;
  // Depth-first in document order, without recursion.
  const stack: [JValue, string, string][] = [[root, "", ""]];
  while (stack.length > 0) {
    const [value, path, last] = stack.pop() as [JValue, string, string];
    if (value instanceof Map) {
      if (value.size === 0) emptyContainers++;
      const children: [JValue, string, string][] = [];
      for (const [key, child] of value) {
        const childPath = path ? `${path}.${key}` : key;
        members.push({ path: childPath, last: key });
        children.push([child, childPath, key]);
      }
      for (let k = children.length - 1; k >= 0; k--) stack.push(children[k] as [JValue, string, string]);
    } else if (Array.isArray(value)) {
      if (value.length === 0) emptyContainers++;
      for (let k = value.length - 1; k >= 0; k--) stack.push([value[k] as JValue, `${path}[]`, last]);
    } else {
      const at = path || "$";
      if (typeof value === "string") {
        const doc = analyseText(value);
        const tokens = doc.lines.flat();
        leaves.push({ path: at, last, value: asciiLower(value.trim()), raw: value, kind: "string", tokens, doc });
      } else if (isNumber(value)) {
        const tokens = classify(value.num, false, false);
        leaves.push({
          path: at,
          last,
          value: canonicalNumber(value.num),
          raw: value.num,
          kind: "number",
          tokens,
          doc: null,
        });
      } else {
        const raw = value === null ? "null" : value ? "true" : "false";
        leaves.push({
          path: at,
          last,
          value: raw,
          raw,
          kind: value === null ? "null" : "boolean",
          tokens: [],
          doc: null,
        });
      }
    }
  }
  return { root, leaves, members, emptyContainers };
}

const leafId = (leaf: Leaf) => `j:${leaf.path}=${leaf.value}`;

function needOf(tokens: readonly Token[]): string[] {
  const need: string[] = [];
  for (const t of tokens) for (const key of t.need) if (!need.includes(key)) need.push(key);
  return need;
}

const MAX_DISPLAY = 120;
const clip = (s: string) => (s.length > MAX_DISPLAY ? `${s.slice(0, MAX_DISPLAY)}...` : s);

/**
 * The facts of a JSON document: each leaf value with its key path, worth the share of the
 * path's records that hold it, and each key path as context. Long strings count their facts.
 */
export function addJsonFacts(doc: JsonDoc, into: FactSet): void {
  const perPath = new Map<string, number>();
  const perValue = new Map<string, number>();
  for (const leaf of doc.leaves) {
    perPath.set(leaf.path, (perPath.get(leaf.path) ?? 0) + 1);
    const id = leafId(leaf);
    perValue.set(id, (perValue.get(id) ?? 0) + 1);
  }
  for (const leaf of doc.leaves) {
    const records = perPath.get(leaf.path) ?? 1;
    if (leaf.doc && leaf.tokens.length > SHORT_STRING_TOKENS) {
      addTextFacts(leaf.doc, into, 1 / records);
      continue;
    }
    into.add({
      kind: "json_leaf",
      weight: (perValue.get(leafId(leaf)) ?? 1) / records,
      specific: true,
      display: clip(`${leaf.path}=${leaf.kind === "string" ? `"${leaf.raw}"` : leaf.raw}`),
      need: needOf(leaf.tokens),
      pathNeed: [leafId(leaf), `j:${leaf.last}=${leaf.value}`],
    });
  }
  for (const member of doc.members) {
    into.add({
      kind: "json_key",
      weight: CONTEXT_WEIGHT,
      specific: false,
      display: member.path,
      need: needOf(classify(member.last, false, false)),
      pathNeed: [`k:${member.path}`, `k:${member.last}`],
    });
  }
}

export function indexJson(doc: JsonDoc, index: FactIndex): void {
  for (const leaf of doc.leaves) {
    index.keys.add(leafId(leaf));
    index.keys.add(`j:${leaf.last}=${leaf.value}`);
    for (const t of leaf.tokens) for (const key of t.index) index.keys.add(key);
  }
  for (const member of doc.members) {
    index.keys.add(`k:${member.path}`);
    index.keys.add(`k:${member.last}`);
    for (const t of classify(member.last, false, false)) for (const key of t.index) index.keys.add(key);
  }
}

/** Each leaf as a unit of content (its identity and bytes), for telling padding from content. */
export function jsonUnits(doc: JsonDoc): { id: string; bytes: number }[] {
  return doc.leaves.map((leaf) => ({ id: leafId(leaf), bytes: utf8Length(leaf.path) + utf8Length(leaf.raw) + 1 }));
}

/** Without a source: the mean specificity of the leaves (an empty container is a leaf of none). */
export function jsonSpecificity(doc: JsonDoc): number {
  const count = doc.leaves.length + doc.emptyContainers;
  if (count === 0) return 0;
  let sum = 0;
  for (const leaf of doc.leaves) {
    if (leaf.kind === "number") sum += 1;
    else if (leaf.kind === "boolean") sum += 0.5;
    else if (leaf.kind === "string") sum += tokenSpecificity(leaf.tokens);
  }
  return sum / count;
}

/**
 * Whether a required field holds: dot paths, `[]` after a segment optional. Through an array
 * the rest of the path must hold for every item (an empty array holds); a segment of digits
 * on an array indexes it.
 */
export function fieldHolds(root: JValue, field: string): boolean {
  const segments = field.split(".").map((s) => (s.endsWith("[]") ? s.slice(0, -2) : s));
  const stack: [JValue, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, at] = stack.pop() as [JValue, number];
    const segment = segments[at];
    if (segment === undefined) continue;
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
