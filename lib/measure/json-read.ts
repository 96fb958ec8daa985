// JSON, read in one pass without building a tree: the parser (strict RFC 8259, as schema.ts)
// hands each leaf, with its key path, straight to the document (json.ts) and its token store.
import { JsonDoc } from "./json";
import { jsonNumberEnd, readJsonString } from "./json-escape";
import type { Lexicon } from "./lexicon";
import type { TokenStore } from "./scan";
import { type JValue, MAX_MEASURED_JSON_DEPTH, parseJson } from "./schema";

const PAIR = 67108864;
const isWs = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const isDigit = (c: number) => c >= 48 && c <= 57;

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
    const read = readJsonString(s, start);
    if (!read.ok) return fail();
    text = read.text;
    from = 0;
    to = read.text.length;
    i = read.end;
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
        if (stack.length >= MAX_MEASURED_JSON_DEPTH) fail();
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
        if (stack.length >= MAX_MEASURED_JSON_DEPTH) fail();
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
      i = jsonNumberEnd(s, start);
      if (i < 0) fail();
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
