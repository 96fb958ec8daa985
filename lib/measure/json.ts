// A JSON document as the measurement sees it: its leaves with their key paths (array indices
// fold into `[]`: `items[].sku` is one path, and every item is one record of it), its members,
// its facts and what it states. json-read.ts reads the text into it.
import { utf8RangeLength } from "./chars";
import { CONTEXT_WEIGHT, type FactIndex, type FactTable, mark, SHOW_KEY, SHOW_LEAF } from "./facts";
import { type Counts, growFloat64, growInt32, growUint8 } from "./intern";
import type { Lexicon, TokenInfo } from "./lexicon";
import type { TokenStore } from "./scan";
import { addTextFacts, indexTokens, readCapitals, specificitySum } from "./text";

const STRING = 0;
const NUMBER = 1;
const BOOLEAN = 2;
const NULL = 3;

/** Strings of more tokens than this are prose: their facts count one by one, not as one value. */
const SHORT_STRING_TOKENS = 8;
const MAX_DISPLAY = 120;

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
    if (readCapitals(this.store, a, b)) this.store.rewritten(this.line0[n] as number, this.store.lines);
    this.spec[n] = b === a ? 0 : specificitySum(this.store, a, b) / (b - a);
    this.end(n, canonicalString(this.lexicon, s, from, to));
  }

  numberLeaf(path: number, last: number, s: string, from: number, to: number): void {
    const n = this.begin(path, last, NUMBER, s, from, to);
    const lexicon = this.lexicon;
    const g = lexicon.group(s, from, to, false);
    this.store.addTokens(g, s, from, to);
    this.spec[n] = 1;
    const first =
      (lexicon.members[g] as number) > 0 ? (lexicon.infos[lexicon.members[g + 1] as number] as TokenInfo) : null;
    let value: number;
    if (first && first.kind === "number") {
      if (first.jsonValue < 0) lexicon.setJsonValue(first, lexicon.values.id(first.numberNeed.slice(2)));
      value = first.jsonValue;
    } else value = lexicon.values.range(s, from, to, true);
    this.end(n, value);
  }

  literalLeaf(path: number, last: number, literal: "true" | "false" | "null"): void {
    const n = this.begin(path, last, literal === "null" ? NULL : BOOLEAN, literal, 0, literal.length);
    this.spec[n] = literal === "null" ? 0 : 0.5;
    this.end(n, this.lexicon.values.id(literal));
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
  return utf8RangeLength(s, from, to < 0 ? s.length : to);
}

/** Canonical string value: trimmed (as JavaScript trims) and ASCII lower-cased. */
function canonicalString(lexicon: Lexicon, s: string, from: number, to: number): number {
  const values = lexicon.values;
  if (to === from) return values.id("");
  const a = s.charCodeAt(from);
  const b = s.charCodeAt(to - 1);
  if (a > 32 && a < 128 && b > 32 && b < 128) return values.range(s, from, to, true);
  const trimmed = s.slice(from, to).trim();
  return values.range(trimmed, 0, trimmed.length, true);
}

/**
 * The key id of `j:${path}=${value}` (a a key id, b a value id), or of `k:${path}` (b < 0).
 * Two pairs spell the same key only when a part holds `=`: without one, the pair is the key,
 * and it gets an id of its own without the string being built; with one (or U+0001, which
 * facts join keys with), the string is built and interned, so equal strings get one id.
 */
function jsonKey(lexicon: Lexicon, prefix: "j:" | "k:", a: number, b: number): number {
  const known = lexicon.jsonKeys.get(a, b + 1);
  if (known >= 0) return known;
  const keys = lexicon.keys;
  const left = keys.strings[a] as string;
  const right = b < 0 ? "" : (lexicon.values.strings[b] as string);
  let id: number;
  if (plainPart(left) && plainPart(right)) id = keys.fresh();
  else {
    const text = b < 0 ? `${prefix}${left}` : `${prefix}${left}=${right}`;
    id = keys.id(text);
    if (text.indexOf("\u0001") >= 0) lexicon.addOddKey(id);
  }
  lexicon.jsonKeys.add(a, b + 1, id);
  return id;
}

const plainPart = (s: string) => s.indexOf("=") < 0 && s.indexOf("\u0001") < 0;

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
