// Longer than most modules on purpose: the reader and the leaf bookkeeping it feeds are one
// pass over the text and read best side by side.
// JSON, read in one pass without building a tree: the parser (strict RFC 8259, as schema.ts)
// hands each leaf, with its key path, straight to the token store and the fact bookkeeping.
// Array indices fold into `[]`: `items[].sku` is one path, and every item is one record of it.
import { CONTEXT_WEIGHT, type FactIndex, type FactTable, mark, SHOW_KEY, SHOW_LEAF } from "./facts";
import { type Counts, growFloat64, growInt32, growUint8 } from "./intern";
import type { Lexicon, TokenInfo } from "./lexicon";
import type { TokenStore } from "./scan";
import { type JValue, parseJson } from "./schema";
import { addTextFacts, indexTokens, specificitySum } from "./text";

const STRING = 0;
const NUMBER = 1;
const BOOLEAN = 2;
const NULL = 3;

/** Strings of more tokens than this are prose: their facts count one by one, not as one value. */
const SHORT_STRING_TOKENS = 8;
const MAX_DISPLAY = 120;
const PAIR = 67108864;

const isWs = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const isDigit = (c: number) => c >= 48 && c <= 57;

export class JsonDoc {
  count = 0;
  /** Per leaf: ids (in `lexicon.keys`) of its path (`$` at the root), last key and canonical value. */
  path = new Int32Array(64);
  last = new Int32Array(64);
  value = new Int32Array(64);
  /** `j:path=value` and `j:last=value`: what a JSON content states of the leaf. */
  key = new Int32Array(64);
  lastKey = new Int32Array(64);
  kind = new Uint8Array(64);
  /** Its lines and tokens in the store. */
  line0 = new Int32Array(64);
  line1 = new Int32Array(64);
  tok0 = new Int32Array(64);
  tok1 = new Int32Array(64);
  /** The value as written (strings decoded): `texts[text]`, characters `[from, to)`. */
  text = new Int32Array(64);
  from = new Int32Array(64);
  to = new Int32Array(64);
  spec = new Float64Array(64);
  /** Object members met: path and last key (ids), in the order met. */
  memberPath = new Int32Array(64);
  memberLast = new Int32Array(64);
  members = 0;
  emptyContainers = 0;
  readonly texts: string[] = [];

  constructor(
    readonly lexicon: Lexicon,
    readonly store: TokenStore,
  ) {}

  private grow(n: number): void {
    if (n <= this.path.length) return;
    this.path = growInt32(this.path, n);
    this.last = growInt32(this.last, n);
    this.value = growInt32(this.value, n);
    this.key = growInt32(this.key, n);
    this.lastKey = growInt32(this.lastKey, n);
    this.kind = growUint8(this.kind, n);
    this.line0 = growInt32(this.line0, n);
    this.line1 = growInt32(this.line1, n);
    this.tok0 = growInt32(this.tok0, n);
    this.tok1 = growInt32(this.tok1, n);
    this.text = growInt32(this.text, n);
    this.from = growInt32(this.from, n);
    this.to = growInt32(this.to, n);
    this.spec = growFloat64(this.spec, n);
  }

  member(path: number, last: number): void {
    const m = this.members++;
    if (m >= this.memberPath.length) {
      this.memberPath = growInt32(this.memberPath, m + 1);
      this.memberLast = growInt32(this.memberLast, m + 1);
    }
    this.memberPath[m] = path;
    this.memberLast[m] = last;
  }

  private begin(path: number, last: number, kind: number, s: string, from: number, to: number): number {
    const n = this.count++;
    this.grow(n + 1);
    this.path[n] = path;
    this.last[n] = last;
    this.kind[n] = kind;
    let text = this.texts.length - 1;
    if (text < 0 || this.texts[text] !== s) {
      this.texts.push(s);
      text++;
    }
    this.text[n] = text;
    this.from[n] = from;
    this.to[n] = to;
    const store = this.store;
    this.line0[n] = store.lines;
    this.tok0[n] = store.count;
    return n;
  }

  private end(n: number, value: number): void {
    const store = this.store;
    this.line1[n] = store.lines;
    this.tok1[n] = store.count;
    this.value[n] = value;
    const keys = this.lexicon;
    this.key[n] = jsonKey(keys, "j:", this.path[n] as number, value);
    this.lastKey[n] = jsonKey(keys, "j:", this.last[n] as number, value);
  }

  /** A string leaf `s[from, to)` (decoded text). */
  stringLeaf(path: number, last: number, s: string, from: number, to: number): void {
    const n = this.begin(path, last, STRING, s, from, to);
    this.store.addText(s, from, to);
    const a = this.tok0[n] as number;
    const b = this.store.count;
    this.spec[n] = b === a ? 0 : specificitySum(this.store, a, b) / (b - a);
    this.end(n, canonicalString(this.lexicon, s, from, to));
  }

  numberLeaf(path: number, last: number, s: string, from: number, to: number): void {
    const n = this.begin(path, last, NUMBER, s, from, to);
    const group = this.lexicon.group(s, from, to, false);
    this.store.addTokens(group, s, from, to);
    this.spec[n] = 1;
    const first = group.length > 0 ? (this.lexicon.infos[group[0] as number] as TokenInfo) : null;
    const value =
      first && first.kind === "number"
        ? this.lexicon.keys.id(
            this.lexicon.keys.strings[this.lexicon.seqs.pool[first.needFrom] as number]?.slice(2) ?? "",
          )
        : this.lexicon.keys.range(s, from, to, true);
    this.end(n, value);
  }

  literalLeaf(path: number, last: number, literal: "true" | "false" | "null"): void {
    const n = this.begin(path, last, literal === "null" ? NULL : BOOLEAN, literal, 0, literal.length);
    this.spec[n] = literal === "null" ? 0 : 0.5;
    this.end(n, this.lexicon.keys.id(literal));
  }

  /** The leaf as a lost example: `path=value`, strings quoted, cut at 120 characters. */
  display(n: number): string {
    const keys = this.lexicon.keys.strings;
    const raw = (this.texts[this.text[n] as number] as string).slice(this.from[n], this.to[n]);
    const s = `${keys[this.path[n] as number]}=${this.kind[n] === STRING ? `"${raw}"` : raw}`;
    return s.length > MAX_DISPLAY ? `${s.slice(0, MAX_DISPLAY)}...` : s;
  }

  /** UTF-8 bytes of the leaf's path and value, plus one: its room in the content. */
  bytes(n: number): number {
    const s = this.texts[this.text[n] as number] as string;
    return (
      utf8Range(this.lexicon.keys.strings[this.path[n] as number] as string, 0, -1) +
      utf8Range(s, this.from[n] as number, this.to[n] as number) +
      1
    );
  }
}

function utf8Range(s: string, from: number, to: number): number {
  const end = to < 0 ? s.length : to;
  let n = 0;
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Canonical string value: trimmed (as JavaScript trims) and ASCII lower-cased. */
function canonicalString(lexicon: Lexicon, s: string, from: number, to: number): number {
  if (to === from) return lexicon.keys.id("");
  const a = s.charCodeAt(from);
  const b = s.charCodeAt(to - 1);
  if (a > 32 && a < 128 && b > 32 && b < 128) return lexicon.keys.range(s, from, to, true);
  const trimmed = s.slice(from, to).trim();
  return lexicon.keys.range(trimmed, 0, trimmed.length, true);
}

const keyCache = new WeakMap<Lexicon, Map<number, number>>();

/** The id of `${prefix}${a}=${b}` (or `${prefix}${a}` when b < 0), a and b being ids. */
function jsonKey(lexicon: Lexicon, prefix: "j:" | "k:", a: number, b: number): number {
  let cache = keyCache.get(lexicon);
  if (!cache) {
    cache = new Map();
    keyCache.set(lexicon, cache);
  }
  const id = b < 0 ? -(a + 1) : a * PAIR + b;
  let known = cache.get(id);
  if (known === undefined) {
    const keys = lexicon.keys;
    known = keys.id(b < 0 ? `${prefix}${keys.strings[a]}` : `${prefix}${keys.strings[a]}=${keys.strings[b]}`);
    cache.set(id, known);
  }
  return known;
}

/**
 * Key paths as handles, spelled out (and interned) only when a leaf or a member needs the
 * string: a deep nest of arrays must not build a path string per level.
 */
class Paths {
  private readonly parent: number[] = [-1];
  /** The key id a handle adds to its parent, or -1 for `[]`. */
  private readonly key: number[] = [-1];
  /** The path's id in `lexicon.keys` once spelled out, else -1. */
  private readonly spelled: number[] = [];
  private readonly empty: boolean[] = [true];
  private readonly children = new Map<number, number>();
  private readonly items = new Map<number, number>();
  private readonly emptyId: number;
  readonly root = 0;

  constructor(private readonly lexicon: Lexicon) {
    this.emptyId = lexicon.keys.id("");
    this.spelled.push(this.emptyId);
  }

  private handle(parent: number, key: number, spelled: number, empty: boolean): number {
    const h = this.parent.length;
    this.parent.push(parent);
    this.key.push(key);
    this.spelled.push(spelled);
    this.empty.push(empty);
    return h;
  }

  /** A member's path: the parent's path, a dot and the key; just the key under an empty path. */
  child(parent: number, key: number): number {
    const pair = parent * PAIR + key;
    let h = this.children.get(pair);
    if (h === undefined) {
      h = this.empty[parent] ? this.handle(-1, key, key, key === this.emptyId) : this.handle(parent, key, -1, false);
      this.children.set(pair, h);
    }
    return h;
  }

  /** An array item's path: the array's path and `[]`. */
  item(parent: number): number {
    let h = this.items.get(parent);
    if (h === undefined) {
      h = this.handle(parent, -1, -1, false);
      this.items.set(parent, h);
    }
    return h;
  }

  /** The path's id as a string. */
  spell(h: number): number {
    const known = this.spelled[h] as number;
    if (known >= 0) return known;
    const strings = this.lexicon.keys.strings;
    const pieces: string[] = [];
    let at = h;
    while ((this.spelled[at] as number) < 0) {
      const key = this.key[at] as number;
      pieces.push(key < 0 ? "[]" : `.${strings[key]}`);
      at = this.parent[at] as number;
    }
    let text = strings[this.spelled[at] as number] as string;
    for (let k = pieces.length - 1; k >= 0; k--) text += pieces[k];
    const id = this.lexicon.keys.id(text);
    this.spelled[h] = id;
    return id;
  }

  /** A leaf's path: `$` for an empty one (the root's). */
  leaf(h: number): number {
    return this.empty[h] ? this.lexicon.keys.id("$") : this.spell(h);
  }
}

class NotJson extends Error {}
class RepeatedKey extends Error {}

interface Frame {
  array: boolean;
  /** Path and last key of the container's members or items. */
  path: number;
  last: number;
  /** Object: the current member's key, and the keys met (to notice a repeated one). */
  key: number;
  keys: number[];
  keySet: Set<number> | null;
}

/** Reads `s` as JSON into a document, or null when it is not JSON. */
export function readJson(lexicon: Lexicon, store: TokenStore, s: string): JsonDoc | null {
  const doc = new JsonDoc(lexicon, store);
  const lines = store.lines;
  const count = store.count;
  try {
    stream(doc, s);
    return doc;
  } catch (error) {
    if (error instanceof RepeatedKey) {
      // Rare enough to read twice: the tree keeps the last value of a key where the first stood.
      store.lines = lines;
      store.count = count;
      const parsed = parseJson(s);
      if (!parsed.ok) return null;
      const again = new JsonDoc(lexicon, store);
      walk(again, parsed.value);
      return again;
    }
    if (error instanceof NotJson) {
      store.lines = lines;
      store.count = count;
      return null;
    }
    throw error;
  }
}

function stream(doc: JsonDoc, s: string): void {
  const lexicon = doc.lexicon;
  const keys = lexicon.keys;
  const paths = new Paths(lexicon);
  const n = s.length;
  let i = 0;
  const fail = (): never => {
    throw new NotJson();
  };
  const ws = () => {
    while (i < n && isWs(s.charCodeAt(i))) i++;
  };
  // The string at i (an opening quote): its decoded text is `text[from, to)`.
  let text = s;
  let from = 0;
  let to = 0;
  const readString = () => {
    i++;
    const start = i;
    for (;;) {
      if (i >= n) fail();
      const c = s.charCodeAt(i);
      if (c === 34) {
        text = s;
        from = start;
        to = i;
        i++;
        return;
      }
      if (c < 32) fail();
      if (c === 92) break;
      i++;
    }
    // Escapes: decode into a string of its own.
    let out = s.slice(start, i);
    let at = i;
    for (;;) {
      if (i >= n) fail();
      const c = s.charCodeAt(i);
      if (c === 34) {
        out += s.slice(at, i);
        i++;
        text = out;
        from = 0;
        to = out.length;
        return;
      }
      if (c < 32) fail();
      if (c !== 92) {
        i++;
        continue;
      }
      out += s.slice(at, i);
      const e = s.charCodeAt(i + 1);
      i += 2;
      if (e === 117) {
        let code = 0;
        for (let k = 0; k < 4; k++) {
          const h = s.charCodeAt(i + k);
          const d = isDigit(h) ? h - 48 : h >= 97 && h <= 102 ? h - 87 : h >= 65 && h <= 70 ? h - 55 : -1;
          if (d < 0) fail();
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
        if (simple === null) fail();
        out += simple;
      }
      at = i;
    }
  };
  const readKey = (frame: Frame) => {
    ws();
    if (s.charCodeAt(i) !== 34) fail();
    readString();
    const key = keys.range(text, from, to, false);
    ws();
    if (s.charCodeAt(i) !== 58) fail();
    i++;
    if (frame.keySet) {
      if (frame.keySet.has(key)) throw new RepeatedKey();
      frame.keySet.add(key);
    } else {
      if (frame.keys.includes(key)) throw new RepeatedKey();
      frame.keys.push(key);
      if (frame.keys.length > 16) frame.keySet = new Set(frame.keys);
    }
    frame.key = key;
    doc.member(paths.spell(paths.child(frame.path, key)), key);
  };
  const literal = (word: "true" | "false" | "null", path: number, last: number) => {
    if (!s.startsWith(word, i)) fail();
    i += word.length;
    doc.literalLeaf(paths.leaf(path), last, word);
  };
  const stack: Frame[] = [];
  let path = paths.root;
  let last = keys.id("");
  for (;;) {
    ws();
    const c = s.charCodeAt(i);
    if (c === 123) {
      i++;
      ws();
      if (s.charCodeAt(i) === 125) {
        i++;
        doc.emptyContainers++;
      } else {
        const frame: Frame = { array: false, path, last, key: -1, keys: [], keySet: null };
        stack.push(frame);
        readKey(frame);
        path = paths.child(frame.path, frame.key);
        last = frame.key;
        continue;
      }
    } else if (c === 91) {
      i++;
      ws();
      if (s.charCodeAt(i) === 93) {
        i++;
        doc.emptyContainers++;
      } else {
        const frame: Frame = { array: true, path: paths.item(path), last, key: -1, keys: [], keySet: null };
        stack.push(frame);
        path = frame.path;
        continue;
      }
    } else if (c === 34) {
      readString();
      doc.stringLeaf(paths.leaf(path), last, text, from, to);
    } else if (c === 45 || isDigit(c)) {
      const start = i;
      if (s.charCodeAt(i) === 45) i++;
      if (s.charCodeAt(i) === 48) i++;
      else if (isDigit(s.charCodeAt(i))) while (i < n && isDigit(s.charCodeAt(i))) i++;
      else fail();
      if (s.charCodeAt(i) === 46) {
        i++;
        if (!isDigit(s.charCodeAt(i))) fail();
        while (i < n && isDigit(s.charCodeAt(i))) i++;
      }
      if (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69) {
        i++;
        if (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45) i++;
        if (!isDigit(s.charCodeAt(i))) fail();
        while (i < n && isDigit(s.charCodeAt(i))) i++;
      }
      doc.numberLeaf(paths.leaf(path), last, s, start, i);
    } else if (c === 116) literal("true", path, last);
    else if (c === 102) literal("false", path, last);
    else if (c === 110) literal("null", path, last);
    else fail();
    // The value is done: close every container that ends here.
    for (;;) {
      const top = stack[stack.length - 1];
      ws();
      if (!top) {
        if (i !== n) fail();
        return;
      }
      const next = s.charCodeAt(i);
      if (next === 44) {
        i++;
        if (top.array) {
          path = top.path;
          last = top.last;
        } else {
          readKey(top);
          path = paths.child(top.path, top.key);
          last = top.key;
        }
        break;
      }
      if (next !== (top.array ? 93 : 125)) fail();
      i++;
      stack.pop();
      path = top.path;
      last = top.last;
    }
  }
}

/** The same document from a tree, in the same order (the reader falls back on it for repeated keys). */
function walk(doc: JsonDoc, root: JValue): void {
  const paths = new Paths(doc.lexicon);
  const keys = doc.lexicon.keys;
  const stack: [JValue, number, number][] = [[root, paths.root, keys.id("")]];
  while (stack.length > 0) {
    const [value, path, last] = stack.pop() as [JValue, number, number];
    if (value instanceof Map) {
      if (value.size === 0) doc.emptyContainers++;
      const children: [JValue, number, number][] = [];
      for (const [name, child] of value) {
        const key = keys.id(name);
        const childPath = paths.child(path, key);
        doc.member(paths.spell(childPath), key);
        children.push([child, childPath, key]);
      }
      for (let k = children.length - 1; k >= 0; k--) stack.push(children[k] as [JValue, number, number]);
    } else if (Array.isArray(value)) {
      if (value.length === 0) doc.emptyContainers++;
      const item = paths.item(path);
      for (let k = value.length - 1; k >= 0; k--) stack.push([value[k] as JValue, item, last]);
    } else if (typeof value === "string") doc.stringLeaf(paths.leaf(path), last, value, 0, value.length);
    else if (value !== null && typeof value === "object")
      doc.numberLeaf(paths.leaf(path), last, value.num, 0, value.num.length);
    else doc.literalLeaf(paths.leaf(path), last, value === null ? "null" : value ? "true" : "false");
  }
}

/** What a leaf's (or a member name's) tokens need, as one key sequence: every key, once, in order. */
function needOf(lexicon: Lexicon, ids: ArrayLike<number>, from: number, to: number): number {
  const seqs = lexicon.seqs;
  const start = seqs.length;
  for (let k = from; k < to; k++) {
    const info = lexicon.infos[ids[k] as number] as TokenInfo;
    for (let p = info.needFrom; p < info.needTo; p++) {
      const key = seqs.pool[p] as number;
      let seen = false;
      for (let j = start; j < seqs.length; j++) {
        if (seqs.scratch[j] === key) {
          seen = true;
          break;
        }
      }
      if (!seen) seqs.push(key);
    }
  }
  return seqs.take();
}

/**
 * The facts of a JSON document: each leaf value with its key path, worth the share of the
 * path's records that hold it, and each key path as context. Long strings count their facts.
 */
export function addJsonFacts(doc: JsonDoc, into: FactTable): void {
  const lexicon = doc.lexicon;
  const perPath = lexicon.counts();
  const perValue = lexicon.counts();
  for (let n = 0; n < doc.count; n++) {
    perPath.add(doc.path[n] as number);
    perValue.add(doc.key[n] as number);
  }
  const store = doc.store;
  for (let n = 0; n < doc.count; n++) {
    const records = perPath.get(doc.path[n] as number);
    const a = doc.tok0[n] as number;
    const b = doc.tok1[n] as number;
    if (doc.kind[n] === STRING && b - a > SHORT_STRING_TOKENS) {
      addTextFacts({ store, firstLine: doc.line0[n] as number, endLine: doc.line1[n] as number }, into, 1 / records);
      continue;
    }
    const weight = perValue.get(doc.key[n] as number) / records;
    into.addPath(
      doc.key[n] as number,
      doc.lastKey[n] as number,
      weight,
      true,
      needOf(lexicon, store.tokens, a, b),
      SHOW_LEAF,
      n,
    );
  }
  for (let m = 0; m < doc.members; m++) {
    const last = doc.memberLast[m] as number;
    const group = lexicon.unpairedGroup(lexicon.keys.strings[last] as string);
    into.addPath(
      jsonKey(lexicon, "k:", doc.memberPath[m] as number, -1),
      jsonKey(lexicon, "k:", last, -1),
      CONTEXT_WEIGHT,
      false,
      needOf(lexicon, group, 0, group.length),
      SHOW_KEY,
      m,
    );
  }
}

export function indexJson(doc: JsonDoc, index: FactIndex, seen: Counts): void {
  const lexicon = doc.lexicon;
  for (let n = 0; n < doc.count; n++) {
    mark(index, doc.key[n] as number);
    mark(index, doc.lastKey[n] as number);
    indexTokens(doc.store, doc.tok0[n] as number, doc.tok1[n] as number, index, seen);
  }
  for (let m = 0; m < doc.members; m++) {
    const last = doc.memberLast[m] as number;
    mark(index, jsonKey(lexicon, "k:", doc.memberPath[m] as number, -1));
    mark(index, jsonKey(lexicon, "k:", last, -1));
    for (const id of lexicon.unpairedGroup(lexicon.keys.strings[last] as string)) {
      const info = lexicon.infos[id] as TokenInfo;
      for (let p = info.indexFrom; p < info.indexTo; p++) mark(index, lexicon.pool[p] as number);
    }
  }
}

/** Without a source: the mean specificity of the leaves (an empty container is a leaf of none). */
export function jsonSpecificity(doc: JsonDoc): number {
  const count = doc.count + doc.emptyContainers;
  if (count === 0) return 0;
  let sum = 0;
  for (let n = 0; n < doc.count; n++) sum += doc.spec[n] as number;
  return sum / count;
}
