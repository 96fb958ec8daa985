// Longer than most modules on purpose: the ids of classified tokens, the overlay that takes a
// content's tokens out again, and the tokens joined across raw tokens ("4 GB", "May 2, 2026")
// share the lexicon's private tables.
// The tokens measurements read, each classified once. A text repeats its words, values and
// record templates over and over; the lexicon turns every distinct raw token into the ids of
// its classified tokens (`classify` runs once per distinct token, not per occurrence) and keeps,
// per classified token, everything the later steps ask of it (TokenInfo). It is kept from one
// measurement to the next for the sources measured in it; what contents add lives in a zone
// after a mark (begin, rollback) that is taken out whole when it grows past its bound or before
// a new source is analysed, so ids only ever stand for equal strings.
import { asciiLower, stem, utf8Length } from "./chars";
import { Counts, growInt32, growUint8, Interner, SeqInterner } from "./intern";
import { PairMap } from "./tables";
import {
  CAP_WORD,
  GERMAN_WORD,
  IS_VALUE,
  LANGUAGE_BIT,
  LETTERS_ONLY,
  LOWER_WORD,
  NAMED,
  NumberFacts,
  TokenInfo,
  VALUE_SIGN,
  WORD_LIKE,
} from "./token-info";
import {
  asciiLettersOnly,
  classify,
  isCapitalWord,
  plainWordKind,
  type Token,
  type TokenKind,
  withYearless,
} from "./tokens";
import { readTime, shiftDecimal } from "./values";
import { GERMAN_WORDS, LANGUAGE_WORDS } from "./words";

export { KEYWORD, STOP, TokenInfo } from "./token-info";

const PAIR = 67108864; // 2^26: two ids below it make one safe integer
/** Raw tokens of contents remembered (see Lexicon.recent), at most. */
const RECENT_SLOTS = 1 << 14;

/** Ids of a group of classified tokens, as `classify` returns them for one raw token. */
type Group = readonly number[];

/** A slot for something a module keeps with each lexicon (see Lexicon.kept and putKept): its key and its type. */
export class Kept<T> {
  declare private readonly type: T;
  constructor(readonly name: string) {}
}

/** A token of letters only, in any script. */
const LETTERS = /^\p{L}+$/u;

/** LETTERS' test, without the regular expression for the ASCII tokens that are most of a text. */
function lettersOnly(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return LETTERS.test(text);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90))) return false;
  }
  return true;
}

/**
 * A function word's flags, GERMAN_WORD and its LANGUAGE_BITs, in one lookup: every new word
 * asks, and most are in none of the lists.
 */
const FUNCTION_WORD_FLAGS: ReadonlyMap<string, number> = (() => {
  const flags = new Map<string, number>();
  for (const word of GERMAN_WORDS) flags.set(word, GERMAN_WORD);
  LANGUAGE_WORDS.forEach((words, i) => {
    for (const word of words) flags.set(word, (flags.get(word) ?? 0) | (LANGUAGE_BIT << i));
  });
  return flags;
})();

export class Lexicon {
  /** Keys, shapes, JSON paths and values: every string the method compares but texts. */
  readonly keys = new Interner();
  /** Texts of tokens in lower case (what sentences and runs are compared by), interned by their characters. */
  readonly atoms = new Interner();
  /**
   * What other modules keep with the lexicon from one measurement to the next, so that their
   * arrays are allocated once (read.ts's content store, efficiency.ts's scratch). On the
   * lexicon itself, not in a WeakMap beside it: an entry there would hold a dropped lexicon
   * until the next full collection. Keyed by a Kept slot, which gives the value its type.
   */
  private readonly keptValues = new Map<Kept<unknown>, unknown>();
  /** Sequences of key ids (what a fact needs), of atoms (sentences) and of shapes (templates). */
  readonly seqs = new SeqInterner();
  readonly infos: TokenInfo[] = [];
  /**
   * Per token id, its text in lower case: an atom times 2, or a sequence of atoms times 2 plus
   * 1. What runs of tokens are compared by, read for every token of every content: from one
   * typed array, not through each token's record.
   */
  norms = new Int32Array(1024);
  /** Per token id, the UTF-8 bytes of its text plus one for the space after it. */
  bytes = new Int32Array(1024);
  /** Per token id, 1 when a join across tokens may open with it (see TokenStore.joinAcross). */
  opensJoin = new Uint8Array(1024);
  /** Per token id, its TokenInfo flags. */
  flags = new Int32Array(1024);
  /** Canonical JSON leaf values (strings trimmed and lower-cased, numbers written out). */
  readonly values = new Interner();
  /** `j:path=value` and `k:path` keys by their parts' ids, and the few keys holding U+0001. */
  readonly jsonKeys = new PairMap();
  readonly oddKeys = new Set<number>();
  /** Index keys and atoms of tokens, back to back (see TokenInfo). */
  pool = new Int32Array(4096);
  private poolSize = 0;
  private readonly raws = new Interner();
  /** Per raw token id: its group (an index into `groups`) read at a sentence's start and elsewhere, or -1. */
  private groupInitial = new Int32Array(1024);
  private groupOther = new Int32Array(1024);
  /** Per raw token id: 1 when it holds an ASCII capital, so that a sentence's start can read it differently. */
  private upper = new Uint8Array(1024);
  /**
   * The groups of classified tokens, back to back: a group at offset g holds `members[g]` ids,
   * `members[g + 1]` on. One flat array, so a distinct raw token costs no array of its own.
   */
  members = new Int32Array(4096);
  private membersSize = 0;
  private readonly unpaired = new Map<number, Group>();
  private readonly dates2 = new Map<number, number>();
  private readonly dates3 = new Map<number, Map<number, number>>();
  private readonly numberJoins = new Map<number, number>();
  private readonly timeJoins = new Map<number, number>();
  private readonly magnitudeJoins = new Map<number, Map<number, number>>();
  private readonly currencyJoins = new Map<number, Map<number, number>>();

  private readonly free: Counts[] = [];
  private readonly taken: Counts[] = [];

  /**
   * Sizes at `mark()`, or null outside one. Everything added after a mark (the zone) is taken out
   * again by `rollback()`: contents bring tokens no later pass will state (request ids, paths),
   * and keeping them for good would fill the lexicon until it is dropped, with every source
   * analysed in it (see index.ts). Until then the zone serves the next measurements: a chain's
   * passes share most of the tokens its source does not state. What a token in the zone holds
   * does not depend on the source (see add), so it serves any measurement. Ids are given in
   * order, so the zone is an id range; the maps keyed by ids log what they were given, to take
   * it out.
   */
  private marked: {
    size: number;
    keys: number;
    atoms: number;
    seqs: number;
    infos: number;
    values: number;
    jsonKeys: number;
    raws: number;
    pool: number;
    members: number;
  } | null = null;
  private readonly undoFrom: { delete(key: number): boolean }[] = [];
  private readonly undoKeys: number[] = [];
  /** Raw tokens of before the mark given a group after it: raw id * 2, plus 1 for a sentence's start. */
  private readonly undoGroups: number[] = [];
  /** Tokens of before the mark whose lazily filled field got an id of after it: info id * 2, plus 1 for jsonValue. */
  private readonly undoInfos: number[] = [];
  /**
   * Raw tokens a content brought that the lexicon did not hold, by text: how many measurements
   * brought them. One brought by a second measurement (after the zone that held it went) is one
   * contents share (a time stamp, a latency, a status) and is taken in for good when the zone
   * goes (`promoted`), so that later ones find it classified; one no other measurement brings (a
   * request id) never is.
   */
  private readonly recent = new Int32Array(RECENT_SLOTS);
  private readonly promoted: string[] = [];
  private readonly promotedAtStart: boolean[] = [];

  /** What a module keeps in `slot`, or undefined before it kept anything. */
  kept<T>(slot: Kept<T>): T | undefined {
    return this.keptValues.get(slot) as T | undefined;
  }

  /** Keeps `value` in `slot` (what was there goes), and gives it back. */
  putKept<T>(slot: Kept<T>, value: T): T {
    this.keptValues.set(slot, value);
    return value;
  }

  /** A measurement begins: what it adds goes to the zone (marked here unless it is already). */
  begin(): void {
    if (this.marked === null) this.mark();
  }

  /** Everything added from here on is taken out by `rollback`. */
  mark(): void {
    this.marked = {
      size: this.size,
      keys: this.keys.size,
      atoms: this.atoms.size,
      seqs: this.seqs.count,
      infos: this.infos.length,
      values: this.values.size,
      jsonKeys: this.jsonKeys.size,
      raws: this.raws.size,
      pool: this.poolSize,
      members: this.membersSize,
    };
  }

  /** Takes out everything added since `mark`, leaving the lexicon as it was then. */
  rollback(): void {
    const m = this.marked;
    if (!m) return;
    this.marked = null;
    for (let k = this.undoKeys.length - 1; k >= 0; k--)
      (this.undoFrom[k] as { delete(key: number): boolean }).delete(this.undoKeys[k] as number);
    this.undoFrom.length = 0;
    this.undoKeys.length = 0;
    for (const g of this.undoGroups) {
      if ((g & 1) === 1) this.groupInitial[g >> 1] = -1;
      else this.groupOther[g >> 1] = -1;
    }
    this.undoGroups.length = 0;
    for (const u of this.undoInfos) {
      const info = this.infos[u >> 1] as TokenInfo;
      if ((u & 1) === 1) info.jsonValue = -1;
      else info.initialReading = -1;
    }
    this.undoInfos.length = 0;
    this.keys.rollback(m.keys);
    this.atoms.rollback(m.atoms);
    this.seqs.rollback(m.seqs);
    this.infos.length = m.infos;
    this.values.rollback(m.values);
    this.jsonKeys.rollback(m.jsonKeys);
    this.raws.rollback(m.raws);
    this.poolSize = m.pool;
    this.membersSize = m.members;
    for (let k = 0; k < this.promoted.length; k++) {
      const text = this.promoted[k] as string;
      this.group(text, 0, text.length, this.promotedAtStart[k] as boolean);
    }
    this.promoted.length = 0;
    this.promotedAtStart.length = 0;
  }

  /**
   * Notes a raw token new to the lexicon after a mark (see `recent`), by its hash in a table of
   * one hash per slot: a collision forgets a token or takes one in early, which costs time,
   * never an answer.
   */
  private broughtByContent(raw: number, atStart: boolean): void {
    const h = this.raws.hashOf(raw) | 1;
    const slot = (h >>> 7) & (RECENT_SLOTS - 1);
    if (this.recent[slot] !== h) {
      this.recent[slot] = h;
      return;
    }
    this.recent[slot] = 0;
    this.promoted.push(this.raws.strings[raw] as string);
    this.promotedAtStart.push(atStart);
  }

  /** Records that `key` was added to `map` (or a set), to take it out on rollback. */
  private added(map: { delete(key: number): boolean }, key: number): void {
    if (this.marked === null) return;
    this.undoFrom.push(map);
    this.undoKeys.push(key);
  }

  /** A key that holds U+0001 (see FactTable.addPath). */
  addOddKey(id: number): void {
    if (this.oddKeys.has(id)) return;
    this.oddKeys.add(id);
    this.added(this.oddKeys, id);
  }

  /** A JSON number's canonical value, kept on its token. */
  setJsonValue(info: TokenInfo, value: number): void {
    info.jsonValue = value;
    if (this.marked !== null && info.id < this.marked.infos && value >= this.marked.values)
      this.undoInfos.push(info.id * 2 + 1);
  }

  /** Zeroed counts by id, for this measurement; `release` hands them all back. */
  counts(): Counts {
    const c = this.free.pop() ?? new Counts();
    c.reset();
    this.taken.push(c);
    return c;
  }

  release(): void {
    for (const c of this.taken) this.free.push(c);
    this.taken.length = 0;
  }

  /** How much the lexicon holds for good (the zone aside), to tell when to start afresh. */
  get size(): number {
    return this.marked?.size ?? this.held();
  }

  /** How much the zone holds, in the same units, to tell when to take it out. */
  get zoneSize(): number {
    return this.marked === null ? 0 : this.held() - this.marked.size;
  }

  private held(): number {
    return this.infos.length + this.keys.size + this.atoms.size + (this.seqs.start[this.seqs.count] as number);
  }

  /**
   * The classified tokens of raw token `s[from, to)`, read at the start of a sentence or not:
   * the offset of their group in `members` (read `members` after the call: it may grow).
   * `hash`, when given, is the characters' FNV-1a state (see Interner.hashedRange).
   */
  group(s: string, from: number, to: number, initial: boolean, hash?: number): number {
    const before = this.raws.size;
    const raw =
      hash === undefined ? this.raws.range(s, from, to, false) : this.raws.hashedRange(s, from, to, false, hash);
    if (raw === before) {
      if (raw >= this.upper.length) {
        this.upper = growUint8(this.upper, raw + 1);
        this.groupInitial = growInt32(this.groupInitial, raw + 1);
        this.groupOther = growInt32(this.groupOther, raw + 1);
      }
      let upper = 0;
      for (let i = from; i < to; i++) {
        const c = s.charCodeAt(i);
        if (c >= 65 && c <= 90) {
          upper = 1;
          break;
        }
      }
      this.upper[raw] = upper;
      this.groupInitial[raw] = -1;
      this.groupOther[raw] = -1;
    }
    // Only a capital letter makes a sentence's first word read differently.
    const atStart = initial && this.upper[raw] === 1;
    if (raw === before && this.marked !== null) this.broughtByContent(raw, atStart);
    const known = atStart ? (this.groupInitial[raw] as number) : (this.groupOther[raw] as number);
    if (known >= 0) return known;
    const text = this.raws.strings[raw] as string;
    // Most new tokens of a text are words of ASCII letters alone: taken in without a token.
    const word = asciiLettersOnly(text) ? this.plainWord(text, atStart) : -1;
    const ids: number[] = [];
    if (word >= 0) ids.push(word);
    else for (const t of classify(text, atStart)) ids.push(this.add(t, null));
    const g = this.membersSize;
    if (g + ids.length + 1 > this.members.length) this.members = growInt32(this.members, g + ids.length + 1);
    this.members[g] = ids.length;
    for (let k = 0; k < ids.length; k++) this.members[g + 1 + k] = ids[k] as number;
    this.membersSize = g + ids.length + 1;
    if (atStart) this.groupInitial[raw] = g;
    else this.groupOther[raw] = g;
    if (this.marked !== null && raw < this.marked.raws) this.undoGroups.push(raw * 2 + (atStart ? 1 : 0));
    return g;
  }

  /** A capital word read as if it opened a sentence: the keyword it is where capitals say nothing. */
  asInitial(info: TokenInfo): number {
    if (info.initialReading < 0) {
      const [t] = classify(info.text, true, false);
      info.initialReading = t ? this.add(t, null) : info.id;
      if (this.marked !== null && info.id < this.marked.infos && info.initialReading >= this.marked.infos)
        this.undoInfos.push(info.id * 2);
    }
    return info.initialReading;
  }

  /** A token classified without `key=value` pairs, as JSON member names and numbers are. */
  unpairedGroup(text: string): Group {
    const id = this.keys.id(text);
    let group = this.unpaired.get(id);
    if (group === undefined) {
      group = classify(text, false, false).map((t) => this.add(t, null));
      this.unpaired.set(id, group);
      this.added(this.unpaired, id);
    }
    return group;
  }

  private poolPush(v: number): void {
    if (this.poolSize >= this.pool.length) this.pool = growInt32(this.pool, this.poolSize + 1);
    this.pool[this.poolSize++] = v;
  }

  /**
   * Takes in a classified token. In the zone (after a mark: a content's tokens) only what a
   * content is asked is kept: its atoms and every key it states, whatever the source, so that
   * the zone serves a measurement against any source. Its needs, its shape and its log flags
   * serve a source's facts alone, and a source is never read in the zone (index.ts analyses a
   * new source only once the zone is gone).
   */
  private add(t: Token, parts: readonly TokenInfo[] | null): number {
    const lower = asciiLower(t.text);
    const keys = this.keys;
    const full = this.marked === null;
    // A word's shape is its lower-case text, the same string as its atom: one lookup for both.
    const atom = parts ? -1 : this.atoms.range(t.text, 0, t.text.length, true);
    const shapeId = full ? keys.id(t.shape) : -1;
    const info = new TokenInfo(this.infos.length, t.text, lower, t.kind, shapeId, t.key, t.shape, full);
    const seqs = this.seqs;
    const index = withYearless(t.index);
    info.indexFrom = this.poolSize;
    for (const k of index) this.poolPush(keys.id(k));
    info.indexTo = this.poolSize;
    if (full) {
      // What a token needs is mostly among what it states, often the very same strings.
      for (const k of t.need) {
        const at = index.indexOf(k);
        seqs.push(at >= 0 ? (this.pool[info.indexFrom + at] as number) : keys.id(k));
      }
      info.needSeq = seqs.take();
      info.needFrom = seqs.start[info.needSeq] as number;
      info.needTo = seqs.start[info.needSeq + 1] as number;
    }
    // Its atoms follow what it states in the pool (TokenInfo.atomsFrom).
    if (parts) {
      for (const p of parts) for (let k = p.atomsFrom; k < p.atomsTo; k++) this.poolPush(this.pool[k] as number);
    } else this.poolPush(atom);
    info.atomsTo = this.poolSize;
    if (t.key === "" && t.shape === lower) {
      if (t.kind === "name") {
        if (isCapitalWord(t.text)) info.flags |= CAP_WORD;
      } else if (t.kind === "keyword" || t.kind === "stop") {
        const c0 = t.text.charCodeAt(0);
        if (c0 >= 97 && c0 <= 122) info.flags |= LOWER_WORD;
        info.flags |= FUNCTION_WORD_FLAGS.get(lower) ?? 0;
      }
    }
    if (lettersOnly(t.text)) {
      info.flags |= LETTERS_ONLY;
      if (t.key === "" && (t.kind === "name" || t.kind === "keyword")) info.flags |= WORD_LIKE;
    }
    if (t.kind === "number" && t.need.length === 1) {
      const need = t.need[0] as string;
      const bar = need.indexOf("|");
      const raw = bar < 0 ? need.slice(2) : need.slice(2, bar);
      let small = -1;
      if (bar < 0) {
        let digits = raw.length <= 4;
        for (let i = 0; digits && i < raw.length; i++) {
          const c = raw.charCodeAt(i);
          if (c < 48 || c > 57) digits = false;
        }
        small = digits ? Number(raw) : -1;
      }
      info.num = new NumberFacts(need, raw, bar < 0 ? "" : need.slice(bar + 1), bar < 0 ? raw : null, small);
    }
    return this.stored(info, utf8Length(t.text) + 1);
  }

  /**
   * A word of ASCII letters alone, taken in as `add` takes in the one token `classify` makes of
   * it, without building that token: its kind and keys are plainWordKind's. -1 for a number
   * word ("fifteen"), which goes the general way.
   */
  private plainWord(text: string, initial: boolean): number {
    const lower = asciiLower(text);
    const kind = plainWordKind(text, lower, initial);
    if (kind === null) return -1;
    const keys = this.keys;
    const full = this.marked === null;
    const atom = this.atoms.range(text, 0, text.length, true);
    const shapeId = full ? keys.id(lower) : -1;
    const info = new TokenInfo(this.infos.length, text, lower, kind, shapeId, "", lower, full);
    info.indexFrom = this.poolSize;
    if (kind !== "stop") {
      this.poolPush(keys.id(`w:${stem(lower)}`));
      this.poolPush(keys.id(`c:${lower}`));
    }
    info.indexTo = this.poolSize;
    if (full) {
      const seqs = this.seqs;
      if (kind !== "stop") seqs.push(this.pool[kind === "name" ? info.indexFrom + 1 : info.indexFrom] as number);
      info.needSeq = seqs.take();
      info.needFrom = seqs.start[info.needSeq] as number;
      info.needTo = seqs.start[info.needSeq + 1] as number;
    }
    this.poolPush(atom);
    info.atomsTo = this.poolSize;
    if (kind === "name") {
      if (isCapitalWord(text)) info.flags |= CAP_WORD;
    } else {
      const c0 = text.charCodeAt(0);
      if (c0 >= 97 && c0 <= 122) info.flags |= LOWER_WORD;
      info.flags |= FUNCTION_WORD_FLAGS.get(lower) ?? 0;
    }
    info.flags |= kind === "stop" ? LETTERS_ONLY : LETTERS_ONLY | WORD_LIKE;
    return this.stored(info, text.length + 1);
  }

  /**
   * Files a new token's record under its id, with what the loops over every token read by id:
   * its norm, its UTF-8 `bytes` and flags, whether a join opens with it.
   */
  private stored(info: TokenInfo, bytes: number): number {
    if (info.id >= this.norms.length) {
      this.norms = growInt32(this.norms, info.id + 1);
      this.bytes = growInt32(this.bytes, info.id + 1);
      this.opensJoin = growUint8(this.opensJoin, info.id + 1);
      this.flags = growInt32(this.flags, info.id + 1);
    }
    this.bytes[info.id] = bytes;
    // A run compares its tokens' texts: one atom is its own norm (even), several an id of their
    // sequence (odd), so the many one-word tokens take no sequence.
    if (info.atomsTo - info.atomsFrom === 1) this.norms[info.id] = (this.pool[info.atomsFrom] as number) * 2;
    else {
      for (let k = info.atomsFrom; k < info.atomsTo; k++) this.seqs.push(this.pool[k] as number);
      this.norms[info.id] = this.seqs.take() * 2 + 1;
    }
    // Every join opens with a month, a currency, a number or a time: most tokens are none.
    const opens = info.words !== null || info.num !== null || info.kind === "number" || info.kind === "time";
    this.opensJoin[info.id] = opens ? 1 : 0;
    if (info.valueSign) info.flags |= VALUE_SIGN;
    if (info.isValue) info.flags |= IS_VALUE;
    if (info.kind === "name" || info.word !== 0) info.flags |= NAMED;
    this.flags[info.id] = info.flags;
    this.infos.push(info);
    return info.id;
  }

  private joined(text: string, kind: TokenKind, key: string, shape: string, keyOf: string, parts: TokenInfo[]): number {
    const t: Token = { text, kind, need: [key], index: [key], shape, key: keyOf, ends: false, open: false };
    return this.add(t, parts);
  }

  /** The table under `pair` of a two-level join table, made (and marked for undo) when new. */
  private byPair(table: Map<number, Map<number, number>>, pair: number): Map<number, number> {
    let inner = table.get(pair);
    if (!inner) {
      inner = new Map();
      table.set(pair, inner);
      this.added(table, pair);
    }
    return inner;
  }

  /** Keeps a join's id under `key`, marked for undo, and gives it back. */
  private keep(table: Map<number, number>, key: number, id: number): number {
    table.set(key, id);
    this.added(table, key);
    return id;
  }

  /** A number written out: `need` is what states it, `index` what finds it. */
  private numberJoin(t: TokenInfo, parts: TokenInfo[], need: string, index: string[]): number {
    const token: Token = {
      text: parts.map((p) => p.text).join(" "),
      kind: "number",
      need: [need],
      index,
      shape: t.shapeText,
      key: t.key,
      ends: false,
      open: false,
    };
    return this.add(token, parts);
  }

  /** "May 2" or "May 2 2026" (month first), "2 May 2026" (day first): one date token. */
  date(parts: TokenInfo[], y: number, m: number, d: number): number {
    const pair = (parts[0] as TokenInfo).id * PAIR + (parts[1] as TokenInfo).id;
    const table = parts.length === 2 ? this.dates2 : this.byPair(this.dates3, pair);
    const key = parts.length === 2 ? pair : (parts[2] as TokenInfo).id;
    const id = table.get(key);
    if (id !== undefined) return id;
    const made = this.joined(parts.map((p) => p.text).join(" "), "date", dateKeyOf(y, m, d), "#date", "", parts);
    return this.keep(table, key, made);
  }

  /** A number and the unit word after it ("4 GB"), keeping the number's key and shape. */
  numberWithUnit(t: TokenInfo, next: TokenInfo): number {
    const pair = t.id * PAIR + next.id;
    const id = this.numberJoins.get(pair);
    if (id !== undefined) return id;
    const plain = `n:${t.numberValue}`;
    const need = `${plain}|${next.unit}`;
    return this.keep(this.numberJoins, pair, this.numberJoin(t, [t, next], need, [plain, need]));
  }

  /**
   * A number and the magnitude word after it ("4.2 million", "$3 billion"), and the unit word
   * after that if any ("4.2 million USD"): one number, written out.
   */
  numberWithMagnitude(t: TokenInfo, word: TokenInfo, unit: TokenInfo | null): number {
    const byUnit = this.byPair(this.magnitudeJoins, t.id * PAIR + word.id);
    const u = unit ? unit.id : -1;
    const id = byUnit.get(u);
    if (id !== undefined) return id;
    const plain = `n:${shiftDecimal(t.numberRaw ?? "0", word.magnitude)}`;
    const unitName = unit ? unit.unit : t.numberUnit;
    const need = unitName ? `${plain}|${unitName}` : plain;
    const parts = unit ? [t, word, unit] : [t, word];
    return this.keep(byUnit, u, this.numberJoin(t, parts, need, unitName ? [plain, need] : [plain]));
  }

  /**
   * A currency and the plain number after it ("USD 4.2M", "€ 5"), and the magnitude word after
   * that if any ("USD 1.5 million"): the number, written out, in that currency.
   */
  currencyFirst(currency: TokenInfo, t: TokenInfo, word: TokenInfo | null): number {
    const byWord = this.byPair(this.currencyJoins, currency.id * PAIR + t.id);
    const w = word ? word.id : -1;
    const id = byWord.get(w);
    if (id !== undefined) return id;
    const plain = `n:${word ? shiftDecimal(t.numberValue ?? "0", word.magnitude) : t.numberValue}`;
    const need = `${plain}|${currency.currency}`;
    const parts = word ? [currency, t, word] : [currency, t];
    return this.keep(byWord, w, this.numberJoin(t, parts, need, [plain, need]));
  }

  /** A number or time and the am/pm after it ("2 pm", "9:30 am"), or -1 when they make no time. */
  timeWithMeridiem(t: TokenInfo, next: TokenInfo): number {
    const pair = t.id * PAIR + next.id;
    const id = this.timeJoins.get(pair);
    if (id !== undefined) return id;
    const word = asciiLower(next.text);
    const hour = t.kind === "number" && t.small >= 1 && t.small <= 12 ? t.small : -1;
    const time = t.kind === "time" ? readTime(`${t.text}${word}`) : hour > 0 ? readTime(`${hour}:00${word}`) : null;
    return this.keep(
      this.timeJoins,
      pair,
      time ? this.joined(`${t.text} ${next.text}`, "time", time[0], "#time", "", [t, next]) : -1,
    );
  }
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
/** A date's key: `d:YYYY-MM-DD`, `d:--MM-DD` without a year, `d:YYYY-MM` without a day. */
const dateKeyOf = (y: number, m: number, d: number) =>
  d === 0 ? `d:${y}-${pad2(m)}` : y > 0 ? `d:${y}-${pad2(m)}-${pad2(d)}` : `d:--${pad2(m)}-${pad2(d)}`;
