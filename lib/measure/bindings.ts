// Bindings (since floorline-facts/4): a fact counts with the record it belongs to. A line of a
// text source is a record ("2026-05-09 07:28:46 upgrade tzdata:all 2025b-0+deb12u1
// 2025b-0+deb12u2": a package and its versions), and lines with the same words in the same order
// (keywords written as words of their own, not parts of a value), whatever their values, are
// items of one list (docs/measurement.md, "Density", bindings). A content that restates an item
// but puts in it a value of another item ("… 2025b-0+deb12u1 3.7.9-2+deb12u6", another package's
// version) keeps every token and states something false: the moved value is not retained from
// it, and the bytes that state it are wasted.
// Long because a source's records (their kinds, templates and places) and the question asked of
// each stretch of a content are one rule's two halves, read together.
//
// Asked of each stretch of a text content measured against a text source (a line, cut after a
// sentence's end and after punctuation, as phrases are, but not at a comma with no space after
// it: a CSV row's fields): it restates record R when R is the record that the most of its raw
// tokens (two or more) state facts of, more than any other, one of them a fact of R alone, and
// every raw token but one states a fact of R. That one is bound to the wrong record when it states
// a fact of another item of R's list in the place of a fact of R the stretch leaves out, one the
// same kind of token states (a version for a version), or stands on a line of R's template (a
// word on one line alone read as a value: a CSV row's codename) at a place where R has a fact the
// stretch leaves out (another row's codename). A summary that aggregates items or adds a
// range to one leaves out nothing of the item; one that composes facts of lines of other kinds (a
// commit's hash with its date, a start with the last uptime) binds nothing within a list; a
// stretch with values of several other items restates no one item. None of them is judged.
import { growInt32, SeqInterner, type Counts } from "./intern";
import { KEYWORD, type Lexicon, type TokenInfo } from "./lexicon";
import { ENDS, FIELD, INNER, OPEN } from "./scan";
import { IdMap, PairMap } from "./tables";
import type { TextDoc } from "./text";

/** A word's place in a template when the word stands on one line alone: a value of that line. */
const ONE_LINE_WORD = -2;
/**
 * A key that stands at more than this many places of the lines of one template is no field of
 * their items (a value repeated along a row), and moves no value by place: part of the method,
 * which keeps the question of a stretch's odd fact as short as its record's line.
 */
const MAX_PLACES = 4;

/**
 * The records of a text source: for each key a fact token (no keyword, no stop word) needs alone,
 * the lines that state it, unless every line does (such a key names no record), and the kind of
 * token that first states it; each line's kind, its keywords of their own in order, and its record
 * keys. `skip` marks lines that state no facts (a diff's notation). Built once per source.
 */
export class SourceRecords {
  /** By key id: the key's index among the record keys plus one (absent: 0). */
  private readonly slots = new IdMap();
  private readonly start: Int32Array;
  private readonly lines: Int32Array;
  /** (key, kind) for each kind of line stating a key. */
  private readonly kinds = new PairMap();
  private readonly kind: Int32Array;
  private readonly first: number;
  /** By slot: the kind of token (a version, a time, a name) that first states the key. */
  private readonly tokenKinds: string[] = [];
  /** The record keys of each line, back to back (CSR by line from `first`). */
  private readonly lineStart: Int32Array;
  private readonly lineKeys: Int32Array;
  /**
   * Each line's template (its tokens' shapes, a word that stands on one line alone read as a
   * value of that line: a CSV row's codename), or -1; and the key each of its tokens states
   * alone (a fact token's only key), or -1, back to back (CSR by line from `first`).
   */
  private readonly template: Int32Array;
  private readonly placeStart: Int32Array;
  private readonly placeKeys: Int32Array;
  /** By (key, template): an entry of `places`, which holds its places (at most MAX_PLACES). */
  private readonly placed = new PairMap();
  private places = new Int32Array(64);
  private placeCount: number[] = [];

  constructor(lexicon: Lexicon, doc: TextDoc, skip: Uint8Array | null) {
    const { store } = doc;
    const infos = lexicon.infos;
    const seqs = lexicon.seqs;
    const keys: number[] = [];
    const at: number[] = [];
    const counts = new Map<number, number>();
    const last = new Map<number, number>();
    const kindOf = new Map<number, string>();
    const kinds = new SeqInterner();
    this.first = doc.firstLine;
    this.kind = new Int32Array(doc.endLine - doc.firstLine).fill(-1);
    this.template = new Int32Array(doc.endLine - doc.firstLine).fill(-1);
    this.placeStart = new Int32Array(doc.endLine - doc.firstLine + 1);
    const counted = (l: number) =>
      (store.lineStart[l] as number) < (store.lineStart[l + 1] as number) &&
      (skip === null || skip[l - doc.firstLine] !== 1);
    // On how many lines each word's shape stands (values aside), and the last line it stood on.
    const wordLines = lexicon.counts();
    const lastLine = lexicon.counts();
    for (let l = doc.firstLine; l < doc.endLine; l++) {
      if (!counted(l)) continue;
      for (let k = store.lineStart[l] as number; k < (store.lineStart[l + 1] as number); k++) {
        const info = infos[store.tokens[k] as number] as TokenInfo;
        if (info.valueShape || lastLine.get(info.shape) === l + 1) continue;
        lastLine.add(info.shape, l + 1 - lastLine.get(info.shape));
        wordLines.add(info.shape);
      }
    }
    const templates = new SeqInterner();
    const base = store.lineStart[doc.firstLine] as number;
    this.placeKeys = new Int32Array((store.lineStart[doc.endLine] as number) - base).fill(-1);
    for (let l = doc.firstLine; l < doc.endLine; l++) {
      const a = store.lineStart[l] as number;
      const b = store.lineStart[l + 1] as number;
      this.placeStart[l - doc.firstLine + 1] = b - base;
      if (!counted(l)) continue;
      for (let k = a; k < b; k++) {
        const info = infos[store.tokens[k] as number] as TokenInfo;
        templates.push(info.valueShape || wordLines.get(info.shape) >= 2 ? info.shape : ONE_LINE_WORD);
        if (info.word === 0 && info.needTo - info.needFrom === 1)
          this.placeKeys[k - base] = seqs.pool[info.needFrom] as number;
      }
      const template = templates.take();
      this.template[l - doc.firstLine] = template;
      for (let k = a; k < b; k++) {
        const key = this.placeKeys[k - base] as number;
        if (key >= 0) this.place(key, template, k - a);
      }
    }
    let records = 0;
    for (let l = doc.firstLine; l < doc.endLine; l++) {
      const a = store.lineStart[l] as number;
      const b = store.lineStart[l + 1] as number;
      if (!counted(l)) continue;
      records++;
      for (let k = a; k < b; k++) {
        const info = infos[store.tokens[k] as number] as TokenInfo;
        // A word of its own, not a part of a value ("tzdata:all", "1.3+dfsg-1").
        const part =
          ((store.flags[k] as number) & INNER) !== 0 || (k > a && ((store.flags[k - 1] as number) & INNER) !== 0);
        if (info.word === KEYWORD && info.needTo > info.needFrom && !part)
          kinds.push(seqs.pool[info.needFrom] as number);
      }
      const kind = kinds.take();
      this.kind[l - doc.firstLine] = kind;
      for (let k = a; k < b; k++) {
        const info = infos[store.tokens[k] as number] as TokenInfo;
        if (info.word !== 0 || info.needTo - info.needFrom !== 1) continue;
        const key = seqs.pool[info.needFrom] as number;
        // Lines come in order: a key stated again on its last line is already counted.
        if (last.get(key) === l) continue;
        last.set(key, l);
        if (this.kinds.get(key, kind) < 0) this.kinds.add(key, kind, 0);
        keys.push(key);
        at.push(l);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        if (!kindOf.has(key)) kindOf.set(key, info.kind);
      }
    }
    // The lines of each key kept, back to back (CSR), in the source's order.
    const sizes: number[] = [];
    for (const [key, n] of counts) {
      if (records > 1 && n === records) continue;
      sizes.push(n);
      this.tokenKinds.push(kindOf.get(key) as string);
      this.slots.set(key, sizes.length);
    }
    this.start = new Int32Array(sizes.length + 1);
    for (let i = 0; i < sizes.length; i++) this.start[i + 1] = (this.start[i] as number) + (sizes[i] as number);
    const fill = this.start.slice(0, sizes.length);
    this.lines = new Int32Array(this.start[sizes.length] as number);
    this.lineStart = new Int32Array(doc.endLine - doc.firstLine + 1);
    const byLine: number[] = [];
    for (let e = 0; e < keys.length; e++) {
      const s = this.slotOf(keys[e] as number);
      if (s === 0) continue;
      const p = fill[s - 1] as number;
      fill[s - 1] = p + 1;
      this.lines[p] = at[e] as number;
      // Keys come line by line, in order.
      byLine.push(keys[e] as number);
      this.lineStart[(at[e] as number) - doc.firstLine + 1] = byLine.length;
    }
    for (let i = 1; i < this.lineStart.length; i++)
      if ((this.lineStart[i] as number) < (this.lineStart[i - 1] as number))
        this.lineStart[i] = this.lineStart[i - 1] as number;
    this.lineKeys = Int32Array.from(byLine);
  }

  /**
   * Whether line `l` has a record key the stretch does not state (`stated`) that the same kind
   * of token states as `key`: a fact whose place `key` may take.
   */
  replaces(key: number, l: number, stated: Counts): boolean {
    const s = this.slotOf(key);
    if (s === 0) return false;
    const kind = this.tokenKinds[s - 1];
    const i = l - this.first;
    for (let k = this.lineStart[i] as number; k < (this.lineStart[i + 1] as number); k++) {
      const own = this.lineKeys[k] as number;
      if (!stated.has(own) && this.tokenKinds[this.slotOf(own) - 1] === kind) return true;
    }
    return false;
  }

  /**
   * Whether `key` stands on another line of line `l`'s template at a place where line `l` has a
   * key the stretch does not state (`stated`): the value of that place on another item.
   */
  inPlace(key: number, l: number, stated: Counts): boolean {
    const i = l - this.first;
    const e = this.placed.get(key, this.template[i] as number);
    if (e < 0 || (this.placeCount[e] as number) > MAX_PLACES) return false;
    const mine = this.placeStart[i] as number;
    for (let n = 0; n < (this.placeCount[e] as number); n++) {
      // Line l's own key there (if line l states `key` there itself, it is no other item's).
      const own = this.placeKeys[mine + (this.places[e * MAX_PLACES + n] as number)] as number;
      if (own >= 0 && own !== key && !stated.has(own)) return true;
    }
    return false;
  }

  /** Notes that `key` stands at place `p` of a line of `template`. */
  private place(key: number, template: number, p: number): void {
    let e = this.placed.get(key, template);
    if (e < 0) {
      e = this.placeCount.length;
      this.placed.add(key, template, e);
      this.placeCount.push(0);
      this.places = growInt32(this.places, (e + 1) * MAX_PLACES);
    }
    const count = this.placeCount[e] as number;
    if (count > MAX_PLACES) return;
    for (let n = 0; n < count; n++) if (this.places[e * MAX_PLACES + n] === p) return;
    if (count === MAX_PLACES) this.placeCount[e] = MAX_PLACES + 1;
    else {
      this.places[e * MAX_PLACES + count] = p;
      this.placeCount[e] = count + 1;
    }
  }

  /** The index plus one of `key` among the record keys, or 0. */
  slotOf(key: number): number {
    return Math.max(0, this.slots.get(key));
  }
  /** How many lines state the record key of slot `s`. */
  size(s: number): number {
    return (this.start[s] as number) - (this.start[s - 1] as number);
  }
  /** The `i`th line stating the record key of slot `s`. */
  line(s: number, i: number): number {
    return this.lines[(this.start[s - 1] as number) + i] as number;
  }
  /** Whether line `l` states `key` (a record key): its lines are in the source's order. */
  holds(key: number, l: number): boolean {
    const s = this.slotOf(key);
    if (s === 0) return false;
    let lo = this.start[s - 1] as number;
    let hi = (this.start[s] as number) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.lines[mid] as number;
      if (at === l) return true;
      if (at < l) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
  /** Whether a line of the kind of line `l` states `key`. */
  sameKind(key: number, l: number): boolean {
    return this.kinds.get(key, this.kind[l - this.first] as number) >= 0;
  }
}

/** What a content binds to the wrong record. */
interface Misbound {
  /** By key of a record: 1 when every stretch stating it binds it to the wrong record, 2 when one does not. */
  keys: Counts;
  /** By token of the content (from its first), 1 in a stretch that binds a fact to the wrong record; null when none does. */
  tokens: Uint8Array | null;
}

/** The stretches of `doc` that bind a fact to the wrong record of the source (see the top of this file). */
export function misbound(lexicon: Lexicon, doc: TextDoc, records: SourceRecords): Misbound {
  const { store } = doc;
  const infos = lexicon.infos;
  const pool = lexicon.pool;
  const keys = lexicon.counts();
  // Per stretch: by named line, how many raw tokens state a fact of it, and the last that did (plus one).
  const hits = lexicon.counts();
  const stamp = lexicon.counts();
  const seen = lexicon.counts();
  const stated = lexicon.counts();
  const first = store.lineStart[doc.firstLine] as number;
  let wrong: Uint8Array | null = null;
  // The stretch's record keys and their slots, raw token by raw token from rawFrom[r]; typed
  // arrays with their lengths, since this runs over every token of every text pass.
  let stretchKeys = new Int32Array(64);
  let stretchSlots = new Int32Array(64);
  let rawFrom = new Int32Array(64);
  // Lines some key of the stretch is stated on alone.
  let named = new Int32Array(16);
  let nKeys = 0;
  let raws = 0;
  let nNamed = 0;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const end = store.lineStart[l + 1] as number;
    for (let s = store.lineStart[l] as number; s < end; ) {
      let e = s;
      nKeys = 0;
      raws = 0;
      nNamed = 0;
      hits.reset();
      stamp.reset();
      seen.reset();
      stated.reset();
      for (;;) {
        const info = infos[store.tokens[e] as number] as TokenInfo;
        for (let n = info.indexFrom; n < info.indexTo; n++) {
          const key = pool[n] as number;
          const slot = records.slotOf(key);
          if (slot === 0) continue;
          if (nKeys === stretchKeys.length) {
            stretchKeys = growInt32(stretchKeys, nKeys + 1);
            stretchSlots = growInt32(stretchSlots, nKeys + 1);
          }
          stretchKeys[nKeys] = key;
          stretchSlots[nKeys++] = slot;
          stated.add(key);
        }
        const f = store.flags[e++] as number;
        const rawEnds = (f & INNER) === 0;
        const from = raws === 0 ? 0 : (rawFrom[raws] as number);
        if (rawEnds && from < nKeys) {
          // A fact the stretch states again is one fact of it.
          if (seen.has(stretchKeys[from] as number)) nKeys = from;
          else {
            seen.add(stretchKeys[from] as number);
            if (raws + 2 > rawFrom.length) rawFrom = growInt32(rawFrom, raws + 2);
            rawFrom[++raws] = nKeys;
            for (let i = from; i < nKeys; i++) {
              const slot = stretchSlots[i] as number;
              if (records.size(slot) !== 1) continue;
              const line = records.line(slot, 0);
              if (hits.has(line)) continue;
              hits.add(line, 0);
              if (nNamed === named.length) named = growInt32(named, nNamed + 1);
              named[nNamed++] = line;
            }
          }
        }
        // A comma with no space after it separates a record's fields (CSV): the stretch goes on.
        if (e >= end || (rawEnds && ((f & ENDS) !== 0 || (f & (OPEN | FIELD)) === 0))) break;
      }
      const at = raws >= 3 && nNamed > 0 ? restated() : -1;
      for (let r = 0; r < raws; r++) {
        const bad = at === r;
        for (let i = rawFrom[r] as number; i < (rawFrom[r + 1] as number); i++) {
          const key = stretchKeys[i] as number;
          if (!bad) keys.add(key, 2 - keys.get(key));
          else if (!keys.has(key)) keys.add(key, 1);
        }
      }
      if (at >= 0) {
        wrong ??= new Uint8Array((store.lineStart[doc.endLine] as number) - first);
        wrong.fill(1, s - first, e - first);
      }
      s = e;
    }
  }
  return { keys, tokens: wrong };

  /** The raw token bound to the wrong record when the stretch restates one, else -1. */
  function restated(): number {
    for (let r = 0; r < raws; r++) {
      for (let i = rawFrom[r] as number; i < (rawFrom[r + 1] as number); i++) {
        const key = stretchKeys[i] as number;
        const slot = stretchSlots[i] as number;
        const count = records.size(slot);
        // Each named line the raw token states a fact of, counted once: by the key's lines or the named ones, the fewer.
        if (count <= nNamed) for (let j = 0; j < count; j++) touch(records.line(slot, j), r);
        else for (let j = 0; j < nNamed; j++) if (records.holds(key, named[j] as number)) touch(named[j] as number, r);
      }
    }
    // The named line most raw tokens state (two or more), more than any other.
    let record = -1;
    let most = 1;
    let tied = false;
    for (let j = 0; j < nNamed; j++) {
      const n = hits.get(named[j] as number);
      if (n > most) {
        record = named[j] as number;
        most = n;
        tied = false;
      } else if (n === most && record >= 0) tied = true;
    }
    if (record < 0 || tied || most !== raws - 1) return -1;
    for (let r = 0; r < raws; r++) {
      let touches = false;
      for (let i = rawFrom[r] as number; i < (rawFrom[r + 1] as number) && !touches; i++)
        touches = records.holds(stretchKeys[i] as number, record);
      if (touches) continue;
      for (let i = rawFrom[r] as number; i < (rawFrom[r + 1] as number); i++) {
        const key = stretchKeys[i] as number;
        if (records.sameKind(key, record) && records.replaces(key, record, stated)) return r;
        if (records.inPlace(key, record, stated)) return r;
      }
      return -1;
    }
    return -1;
  }

  function touch(line: number, r: number): void {
    if (!hits.has(line) || stamp.get(line) === r + 1) return;
    stamp.add(line, r + 1 - stamp.get(line));
    hits.add(line);
  }
}
