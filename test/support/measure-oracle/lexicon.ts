// The tokens of one measurement, each classified once. A text repeats its words, values and
// record templates over and over; the lexicon turns every distinct raw token into the ids of
// its classified tokens (`classify` runs once per distinct token, not per occurrence) and keeps,
// per classified token, everything the later steps ask of it as plain fields. Lives for one
// call of `measure`, so nothing leaks from one measurement into another.
import { asciiLower, utf8Length } from "./chars";
import { Counts, growInt32, growUint8, Interner, PairMap, SeqInterner, StringIds } from "./intern";
import { classify, isCapitalWord, type Token, type TokenKind, withYearless } from "./tokens";
import { readTime, shiftDecimal } from "./values";
import {
  ATTACHED_ONLY_UNITS,
  ERROR_LEVELS,
  ERROR_OPENERS,
  GERMAN_WORDS,
  LOG_LEVELS,
  MAGNITUDES,
  MONTHS,
  UNITS,
} from "./words";

export const KEYWORD = 1;
export const STOP = 2;

/**
 * A classified token with what every step needs of it. Tokens are ids into `Lexicon.infos`;
 * key lists live in the lexicon's pools: what a fact needs (`needFrom`..`needTo` of
 * `seqs.pool`), what the token states (`indexFrom`..`indexTo` of `pool`) and the ids of its
 * text in lower case, one per word-like piece (`atomsFrom`..`atomsTo` of `pool`).
 */
export class TokenInfo {
  needSeq = -1;
  needFrom = 0;
  needTo = 0;
  indexFrom = 0;
  indexTo = 0;
  atomsFrom = 0;
  atomsTo = 0;
  /** Its text in lower case, as an id (of its atoms' sequence): what runs of tokens are compared by. */
  norm = -1;
  /** UTF-8 bytes of the text, plus one for the space after it. */
  bytes: number;
  /** 1 for a keyword, 2 for a stop word, 0 for a fact. */
  word: number;
  /** Specificity without a source, in halves (an integer, so it is no boxed double): a fact 2, a keyword 1, a stop word 0. */
  specHalves: number;
  valueShape: boolean;
  /** Month of a month name (any kind), else 0. */
  month = 0;
  /** A plain number's canonical value (no unit), else null; and it as a small integer, else -1. */
  numberValue: string | null = null;
  small = -1;
  /** Any number's value and unit (its single need, `n:value` or `n:value|unit`), else null and "". */
  numberRaw: string | null = null;
  numberUnit = "";
  /** The unit a word names, when the word follows a number ("GB"), else "". */
  unit = "";
  /** The power of ten a word scales the number before it by ("million": 6), else 0. */
  magnitude = 0;
  /** The currency a word or sign names when it stands before a number ("USD 5", "€ 5"), else "". */
  currency = "";
  ampm = false;
  isTime: boolean;
  /** A word that is a name only by its capital ("Parquet"), and a plain lower-case word. */
  capWord = false;
  lowerWord = false;
  /** A German function word ("und", "für"). */
  germanWord = false;
  /** The same word read at a sentence's start (a keyword), once asked for, else -1. */
  initialReading = -1;
  /** As a JSON number's canonical value (an id in `Lexicon.values`), once asked for, else -1. */
  jsonValue = -1;
  /** Leads a log line (a time or a level), is an error level, opens an error report. */
  logLead = false;
  errorLevel = false;
  opensError = false;

  constructor(
    readonly id: number,
    readonly text: string,
    lower: string,
    readonly kind: TokenKind,
    readonly shape: number,
    readonly key: string,
    readonly shapeText: string,
  ) {
    this.bytes = utf8Length(text) + 1;
    this.word = kind === "keyword" ? KEYWORD : kind === "stop" ? STOP : 0;
    this.specHalves = kind === "stop" ? 0 : kind === "keyword" ? 1 : 2;
    this.valueShape = shapeText.charCodeAt(0) === 35 || shapeText.indexOf("=#") >= 0;
    this.isTime = kind === "datetime" || kind === "date" || kind === "time";
    // Words only: a month, a unit, am/pm, a level, an error opener hold no digit and no dot but "a.m".
    if (lower.length <= 16) {
      this.month = MONTHS.get(lower) ?? 0;
      const unit = UNITS.get(lower);
      if (unit && !ATTACHED_ONLY_UNITS.has(lower)) this.unit = unit;
      this.ampm = lower === "am" || lower === "pm" || lower === "a.m" || lower === "p.m";
      this.magnitude = MAGNITUDES.get(lower) ?? 0;
      if (kind !== "number" && (unit === "usd" || unit === "eur" || unit === "gbp")) this.currency = unit;
    }
    let level = lower;
    if (key) {
      const k = asciiLower(key);
      level = k === "level" || k === "lvl" || k === "severity" ? lower : "";
    }
    this.logLead = this.isTime || LOG_LEVELS.has(level);
    this.errorLevel = ERROR_LEVELS.has(level);
    this.opensError =
      ERROR_OPENERS.has(lower) ||
      // /4: a flag ("--exit-on-error") opens nothing.
      (lower.length > 5 && !lower.startsWith("-") && (lower.endsWith("error") || lower.endsWith("exception")));
  }
}

const PAIR = 67108864; // 2^26: two ids below it make one safe integer

/** Ids of a group of classified tokens, as `classify` returns them for one raw token. */
type Group = readonly number[];

export class Lexicon {
  /** Keys, shapes, lower-case texts, JSON paths and values: every string the method compares. */
  readonly keys = new StringIds();
  /** Sequences of key ids (what a fact needs), of atoms (sentences) and of shapes (templates). */
  readonly seqs = new SeqInterner();
  readonly infos: TokenInfo[] = [];
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

  /** How much the lexicon holds, to tell when to start afresh. */
  get size(): number {
    return this.infos.length + this.keys.size + (this.seqs.start[this.seqs.count] as number);
  }

  /**
   * The classified tokens of raw token `s[from, to)`, read at the start of a sentence or not:
   * the offset of their group in `members` (read `members` after the call: it may grow).
   */
  group(s: string, from: number, to: number, initial: boolean): number {
    const before = this.raws.size;
    const raw = this.raws.range(s, from, to, false);
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
    const known = atStart ? (this.groupInitial[raw] as number) : (this.groupOther[raw] as number);
    if (known >= 0) return known;
    const ids = classify(this.raws.strings[raw] as string, atStart).map((t) => this.add(t, null));
    const g = this.membersSize;
    if (g + ids.length + 1 > this.members.length) this.members = growInt32(this.members, g + ids.length + 1);
    this.members[g] = ids.length;
    for (let k = 0; k < ids.length; k++) this.members[g + 1 + k] = ids[k] as number;
    this.membersSize = g + ids.length + 1;
    if (atStart) this.groupInitial[raw] = g;
    else this.groupOther[raw] = g;
    return g;
  }

  /** A capital word read as if it opened a sentence: the keyword it is where capitals say nothing. */
  asInitial(info: TokenInfo): number {
    if (info.initialReading < 0) {
      const [t] = classify(info.text, true, false);
      info.initialReading = t ? this.add(t, null) : info.id;
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
    }
    return group;
  }

  private poolPush(v: number): void {
    if (this.poolSize >= this.pool.length) this.pool = growInt32(this.pool, this.poolSize + 1);
    this.pool[this.poolSize++] = v;
  }

  private add(t: Token, parts: readonly TokenInfo[] | null): number {
    const lower = asciiLower(t.text);
    const keys = this.keys;
    // A word's shape is its lower-case text, the same string as its atom: one lookup for both.
    const lowerId = t.shape === lower || !parts ? keys.id(lower) : -1;
    const shapeId = t.shape === lower ? lowerId : keys.id(t.shape);
    const info = new TokenInfo(this.infos.length, t.text, lower, t.kind, shapeId, t.key, t.shape);
    const seqs = this.seqs;
    const index = withYearless(t.index);
    info.indexFrom = this.poolSize;
    for (const k of index) this.poolPush(keys.id(k));
    info.indexTo = this.poolSize;
    // What a token needs is mostly among what it states, often the very same strings.
    for (const k of t.need) {
      const at = index.indexOf(k);
      seqs.push(at >= 0 ? (this.pool[info.indexFrom + at] as number) : keys.id(k));
    }
    info.needSeq = seqs.take();
    info.needFrom = seqs.start[info.needSeq] as number;
    info.needTo = seqs.start[info.needSeq + 1] as number;
    info.atomsFrom = this.poolSize;
    if (parts) {
      for (const p of parts) for (let k = p.atomsFrom; k < p.atomsTo; k++) this.poolPush(this.pool[k] as number);
    } else this.poolPush(lowerId);
    info.atomsTo = this.poolSize;
    for (let k = info.atomsFrom; k < info.atomsTo; k++) seqs.push(this.pool[k] as number);
    info.norm = seqs.take();
    if (t.key === "" && t.shape === lower) {
      if (t.kind === "name") info.capWord = isCapitalWord(t.text);
      else if (t.kind === "keyword" || t.kind === "stop") {
        const c0 = t.text.charCodeAt(0);
        info.lowerWord = c0 >= 97 && c0 <= 122;
        info.germanWord = GERMAN_WORDS.has(lower);
      }
    }
    if (t.kind === "number" && t.need.length === 1) {
      const need = t.need[0] as string;
      const bar = need.indexOf("|");
      info.numberRaw = bar < 0 ? need.slice(2) : need.slice(2, bar);
      info.numberUnit = bar < 0 ? "" : need.slice(bar + 1);
    }
    if (t.kind === "number" && t.need.length === 1 && (t.need[0] as string).indexOf("|") === -1) {
      const v = (t.need[0] as string).slice(2);
      info.numberValue = v;
      let digits = v.length <= 4;
      for (let i = 0; digits && i < v.length; i++) {
        const c = v.charCodeAt(i);
        if (c < 48 || c > 57) digits = false;
      }
      info.small = digits ? Number(v) : -1;
    }
    this.infos.push(info);
    return info.id;
  }

  private joined(text: string, kind: TokenKind, key: string, shape: string, keyOf: string, parts: TokenInfo[]): number {
    const t: Token = { text, kind, need: [key], index: [key], shape, key: keyOf, ends: false, open: false };
    return this.add(t, parts);
  }

  /** "May 2" or "May 2 2026" (month first), "2 May 2026" (day first): one date token. */
  date(parts: TokenInfo[], y: number, m: number, d: number): number {
    const a = (parts[0] as TokenInfo).id;
    const b = (parts[1] as TokenInfo).id;
    const pair = a * PAIR + b;
    if (parts.length === 2) {
      let id = this.dates2.get(pair);
      if (id === undefined) {
        id = this.joined(parts.map((p) => p.text).join(" "), "date", dateKeyOf(y, m, d), "#date", "", parts);
        this.dates2.set(pair, id);
      }
      return id;
    }
    let byThird = this.dates3.get(pair);
    if (!byThird) {
      byThird = new Map();
      this.dates3.set(pair, byThird);
    }
    const c = (parts[2] as TokenInfo).id;
    let id = byThird.get(c);
    if (id === undefined) {
      id = this.joined(parts.map((p) => p.text).join(" "), "date", dateKeyOf(y, m, d), "#date", "", parts);
      byThird.set(c, id);
    }
    return id;
  }

  /** A number and the unit word after it ("4 GB"), keeping the number's key and shape. */
  numberWithUnit(t: TokenInfo, next: TokenInfo): number {
    const pair = t.id * PAIR + next.id;
    let id = this.numberJoins.get(pair);
    if (id === undefined) {
      const plain = `n:${t.numberValue}`;
      const need = `${plain}|${next.unit}`;
      const token: Token = {
        text: `${t.text} ${next.text}`,
        kind: "number",
        need: [need],
        index: [plain, need],
        shape: t.shapeText,
        key: t.key,
        ends: false,
        open: false,
      };
      id = this.add(token, [t, next]);
      this.numberJoins.set(pair, id);
    }
    return id;
  }

  /**
   * A number and the magnitude word after it ("4.2 million", "$3 billion"), and the unit word
   * after that if any ("4.2 million USD"): one number, written out.
   */
  numberWithMagnitude(t: TokenInfo, word: TokenInfo, unit: TokenInfo | null): number {
    const pair = t.id * PAIR + word.id;
    let byUnit = this.magnitudeJoins.get(pair);
    if (!byUnit) {
      byUnit = new Map();
      this.magnitudeJoins.set(pair, byUnit);
    }
    const u = unit ? unit.id : -1;
    let id = byUnit.get(u);
    if (id === undefined) {
      const plain = `n:${shiftDecimal(t.numberRaw ?? "0", word.magnitude)}`;
      const unitName = unit ? unit.unit : t.numberUnit;
      const need = unitName ? `${plain}|${unitName}` : plain;
      const parts = unit ? [t, word, unit] : [t, word];
      const token: Token = {
        text: parts.map((p) => p.text).join(" "),
        kind: "number",
        need: [need],
        index: unitName ? [plain, need] : [plain],
        shape: t.shapeText,
        key: t.key,
        ends: false,
        open: false,
      };
      id = this.add(token, parts);
      byUnit.set(u, id);
    }
    return id;
  }

  /**
   * A currency and the plain number after it ("USD 4.2M", "€ 5"), and the magnitude word after
   * that if any ("USD 1.5 million"): the number, written out, in that currency.
   */
  currencyFirst(currency: TokenInfo, t: TokenInfo, word: TokenInfo | null): number {
    const pair = currency.id * PAIR + t.id;
    let byWord = this.currencyJoins.get(pair);
    if (!byWord) {
      byWord = new Map();
      this.currencyJoins.set(pair, byWord);
    }
    const w = word ? word.id : -1;
    let id = byWord.get(w);
    if (id === undefined) {
      const plain = `n:${word ? shiftDecimal(t.numberValue ?? "0", word.magnitude) : t.numberValue}`;
      const need = `${plain}|${currency.currency}`;
      const parts = word ? [currency, t, word] : [currency, t];
      const token: Token = {
        text: parts.map((p) => p.text).join(" "),
        kind: "number",
        need: [need],
        index: [plain, need],
        shape: t.shapeText,
        key: t.key,
        ends: false,
        open: false,
      };
      id = this.add(token, parts);
      byWord.set(w, id);
    }
    return id;
  }

  /** A number or time and the am/pm after it ("2 pm", "9:30 am"), or -1 when they make no time. */
  timeWithMeridiem(t: TokenInfo, next: TokenInfo): number {
    const pair = t.id * PAIR + next.id;
    let id = this.timeJoins.get(pair);
    if (id === undefined) {
      const word = asciiLower(next.text);
      const hour = t.kind === "number" && t.small >= 1 && t.small <= 12 ? t.small : -1;
      const time = t.kind === "time" ? readTime(`${t.text}${word}`) : hour > 0 ? readTime(`${hour}:00${word}`) : null;
      id = time ? this.joined(`${t.text} ${next.text}`, "time", time[0], "#time", "", [t, next]) : -1;
      this.timeJoins.set(pair, id);
    }
    return id;
  }
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
/** A date's key: `d:YYYY-MM-DD`, `d:--MM-DD` without a year, `d:YYYY-MM` without a day. */
const dateKeyOf = (y: number, m: number, d: number) =>
  d === 0 ? `d:${y}-${pad2(m)}` : y > 0 ? `d:${y}-${pad2(m)}-${pad2(d)}` : `d:--${pad2(m)}-${pad2(d)}`;
