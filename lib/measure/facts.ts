// What a fact is once extracted, whatever its format, and how a fact is looked up in what a
// later pass (or a cached original) still states. Facts live in flat arrays, in the order the
// source first states them; a fact's identity is its kind of identity and the ids of its keys.
import { type Counts, growFloat64, growInt32, growUint8 } from "./intern";
import type { Lexicon } from "./lexicon";

/** A specific fact counts fully; context (keywords, JSON keys) only this much of one. */
export const CONTEXT_WEIGHT = 0.2;
/** An error line is worth two facts of its own, beyond the facts it contains. */
export const ERROR_LINE_WEIGHT = 2;
/**
 * Salience (since floorline-facts/4): when a source reports errors or warnings, the facts of
 * those entries weigh at least this share of its coverage, whatever their number, and every
 * other fact the rest (their own share when it is larger). A reader of a log reads it for its errors first: a pass that keeps every routine
 * line and drops the one deadlock has lost what the reader came for.
 */
export const SALIENT_SHARE = 0.5;
/**
 * The share of those entries' weight a pass must keep before its coverage counts in full; under
 * it, the coverage is scaled down in proportion (a pass keeping a tenth of it keeps a fifth of
 * its coverage).
 */
export const SALIENT_NEED = 0.5;

/** How a fact is shown when it is listed: what `shownA` and `shownB` refer to. */
export const SHOW_TOKEN = 0; // a token (A) and the token after it (B, or -1), open or not (flag)
export const SHOW_LINE = 1; // line A of the source's token store
export const SHOW_LEAF = 2; // leaf A of the source's JSON document
export const SHOW_KEY = 3; // never shown (context)

const PAIR = 67108864;

/** What a piece of content states: a mark per key id. */
export interface FactIndex {
  marks: Counts;
  json: boolean;
}

export function newIndex(lexicon: Lexicon, json: boolean): FactIndex {
  return { marks: lexicon.counts(), json };
}

export function mark(index: FactIndex, key: number): void {
  if (!index.marks.has(key)) index.marks.add(key);
}

const marked = (index: FactIndex, key: number) => index.marks.has(key);

/** The source's facts by identity, in the order the source first states them. */
export class FactTable {
  count = 0;
  weight = new Float64Array(64);
  specific = new Uint8Array(64);
  /** 1 for a fact of an error or warning entry (see SALIENT_SHARE). */
  salient = new Uint8Array(64);
  /**
   * 1 for a fact a word states (a keyword or a name of letters only): what a language says in its
   * own words, and a phrase carries (since floorline-facts/4; see measureWith).
   */
  word = new Uint8Array(64);
  /**
   * 1 for a fact a value states (a number, a hash, a version, a date, a path: written in more
   * than letters, and no name): what a sentence must tie to a word or a name (since /4).
   */
  value = new Uint8Array(64);
  /** Id (a key sequence) of the keys an index must hold, all of them, for text to state the fact. */
  need = new Int32Array(64);
  /** For JSON facts: two key ids of which one suffices when the content is JSON too; else -1. */
  pathA = new Int32Array(64);
  pathB = new Int32Array(64);
  show = new Uint8Array(64);
  shownA = new Int32Array(64);
  shownB = new Int32Array(64);
  shownOpen = new Uint8Array(64);
  private readonly byText = new Map<number, number>();
  private readonly byLine = new Map<number, number>();
  private readonly byPath = new Map<number, number>();
  private readonly byPathText = new Map<string, number>();

  constructor(readonly lexicon: Lexicon) {}

  /** A token's fact: identity is what it needs. Keeps the larger weight of the same fact. */
  addText(
    need: number,
    weight: number,
    specific: boolean,
    token: number,
    next: number,
    open: boolean,
    salient = false,
    word = false,
    value = false,
  ): void {
    const known = this.byText.get(need);
    if (known !== undefined) {
      this.raise(known, weight, salient);
      return;
    }
    const f = this.create(weight, specific, need, -1, -1, salient);
    this.word[f] = word ? 1 : 0;
    this.value[f] = value ? 1 : 0;
    this.byText.set(need, f);
    this.shownA[f] = token;
    this.shownB[f] = next;
    this.shownOpen[f] = open ? 1 : 0;
  }

  addLine(need: number, weight: number, line: number, salient = false): void {
    const known = this.byLine.get(need);
    if (known !== undefined) {
      this.raise(known, weight, salient);
      return;
    }
    const f = this.create(weight, true, need, -1, -1, salient);
    this.byLine.set(need, f);
    this.show[f] = SHOW_LINE;
    this.shownA[f] = line;
  }

  /** A JSON fact: identity is its two path keys. */
  addPath(a: number, b: number, weight: number, specific: boolean, need: number, show: number, shown: number): void {
    // Keys holding U+0001 are told apart by their text, as the two keys joined by it.
    const oddKeys = this.lexicon.oddKeys;
    const odd = oddKeys.size > 0 && (oddKeys.has(a) || oddKeys.has(b));
    const keys = this.lexicon.keys.strings;
    const id = odd ? `${keys[a]}\u0001${keys[b]}` : a * PAIR + b;
    const known = typeof id === "string" ? this.byPathText.get(id) : this.byPath.get(id);
    if (known !== undefined) {
      this.raise(known, weight);
      return;
    }
    const f = this.create(weight, specific, need, a, b);
    if (typeof id === "string") this.byPathText.set(id, f);
    else this.byPath.set(id, f);
    this.show[f] = show;
    this.shownA[f] = shown;
  }

  /** The same fact stated again: the larger weight; salient if any statement of it is. */
  private raise(f: number, weight: number, salient = false): void {
    if (weight > (this.weight[f] as number)) this.weight[f] = weight;
    if (salient) this.salient[f] = 1;
  }

  private create(weight: number, specific: boolean, need: number, a: number, b: number, salient = false): number {
    const f = this.count++;
    if (f >= this.weight.length) {
      const n = f + 1;
      this.weight = growFloat64(this.weight, n);
      this.specific = growUint8(this.specific, n);
      this.salient = growUint8(this.salient, n);
      this.word = growUint8(this.word, n);
      this.value = growUint8(this.value, n);
      this.need = growInt32(this.need, n);
      this.pathA = growInt32(this.pathA, n);
      this.pathB = growInt32(this.pathB, n);
      this.show = growUint8(this.show, n);
      this.shownA = growInt32(this.shownA, n);
      this.shownB = growInt32(this.shownB, n);
      this.shownOpen = growUint8(this.shownOpen, n);
    }
    this.weight[f] = weight;
    this.specific[f] = specific ? 1 : 0;
    this.salient[f] = salient ? 1 : 0;
    this.word[f] = 0;
    this.value[f] = 0;
    this.need[f] = need;
    this.pathA[f] = a;
    this.pathB[f] = b;
    this.show[f] = SHOW_TOKEN;
    return f;
  }

  /**
   * Whether fact `f`, needing one key alone, is bound to a wrong record wherever a content states
   * it (`keys`: see bindings.ts, 1 for such a key).
   */
  misbound(keys: Counts, f: number): boolean {
    const seqs = this.lexicon.seqs;
    const need = this.need[f] as number;
    const from = seqs.start[need] as number;
    return (seqs.start[need + 1] as number) - from === 1 && keys.get(seqs.pool[from] as number) === 1;
  }

  /**
   * Whether the index states fact `f`. A JSON fact in JSON content is stated at its path (or its
   * last key) with its value; `byValue` (no field is required of the content) lets the value's
   * own keys state it wherever they are, as in text: a re-keyed or columnar JSON keeps its values.
   */
  states(index: FactIndex, f: number, byValue = false): boolean {
    const a = this.pathA[f] as number;
    if (index.json && a >= 0) {
      if (marked(index, a) || marked(index, this.pathB[f] as number)) return true;
      if (!byValue) return false;
    }
    const seqs = this.lexicon.seqs;
    const need = this.need[f] as number;
    const from = seqs.start[need] as number;
    const to = seqs.start[need + 1] as number;
    if (to === from) return false;
    for (let k = from; k < to; k++) if (!marked(index, seqs.pool[k] as number)) return false;
    return true;
  }
}
