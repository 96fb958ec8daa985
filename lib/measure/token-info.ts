// A classified token with what every later step asks of it, as plain fields (see Lexicon).
import { asciiLower } from "./chars";
import type { TokenKind } from "./tokens";
import { ATTACHED_ONLY_UNITS, ERROR_LEVELS, ERROR_OPENERS, LOG_LEVELS, MAGNITUDES, MONTHS, UNITS } from "./words";

/** Every word the words block of TokenInfo's constructor reads something from: most words are none. */
const NAMING_WORDS: ReadonlySet<string> = new Set([
  ...MONTHS.keys(),
  ...UNITS.keys(),
  ...MAGNITUDES.keys(),
  "am",
  "pm",
  "a.m",
  "p.m",
]);
/** Every word a source's token is flagged for whatever its length: the log levels, error levels and openers. */
const LEAD_WORDS: ReadonlySet<string> = new Set([...LOG_LEVELS, ...ERROR_LEVELS, ...ERROR_OPENERS]);

export const KEYWORD = 1;
export const STOP = 2;

// Yes-or-no facts of a token, as bits of one field: a token record is made for every distinct
// token of every text, and each field is eight bytes of it.
const VALUE_SHAPE = 1;
const AMPM = 2;
const IS_TIME = 4;
export const CAP_WORD = 8;
export const LOWER_WORD = 16;
export const GERMAN_WORD = 32;
const LOG_LEAD = 64;
const ERROR_LEVEL = 128;
const OPENS_ERROR = 256;
/** A word of letters only, a keyword or a name: what a phrase is made of (since floorline-facts/4). */
export const WORD_LIKE = 512;
/** Letters only, in any script, whatever its kind ("zero" is a number). */
export const LETTERS_ONLY = 16384;
/** A function word of language i of LANGUAGE_WORDS is bit LANGUAGE_BIT << i (since floorline-facts/4). */
export const LANGUAGE_SHIFT = 10;
export const LANGUAGE_BIT = 1 << LANGUAGE_SHIFT;
export const LANGUAGE_BITS = LANGUAGE_BIT * 15;
// What the getters below tell, as bits too (set once the token is taken in, see Lexicon.add),
// for the loops that read Lexicon.flags rather than each token's record.
/** valueSign. */
export const VALUE_SIGN = 1 << 15;
/** isValue. */
export const IS_VALUE = 1 << 16;
/** A name, a keyword or a stop word: what ties a sentence's values to something. */
export const NAMED = 1 << 17;

/**
 * A classified token with what every step needs of it. Tokens are ids into `Lexicon.infos`;
 * key lists live in the lexicon's pools: what a fact needs (`needFrom`..`needTo` of
 * `seqs.pool`), what the token states (`indexFrom`..`indexTo` of `pool`) and the ids of its
 * text in lower case, one per word-like piece (`atomsFrom`..`atomsTo` of `pool`, right after
 * what it states). What every token of a content is read for (its norm, its bytes, whether a
 * join opens with it) is in the lexicon's typed arrays by id instead.
 */
export class TokenInfo {
  needSeq = -1;
  needFrom = 0;
  needTo = 0;
  indexFrom = 0;
  indexTo = 0;
  atomsTo = 0;
  /** 1 for a keyword, 2 for a stop word, 0 for a fact. */
  word: number;
  /** Specificity without a source, in halves (an integer, so it is no boxed double): a fact 2, a keyword 1, a stop word 0. */
  specHalves: number;
  /** The bits above. */
  flags = 0;
  /** What a number carries (see NumberFacts), else null. */
  num: NumberFacts | null = null;
  /** What a word naming a month, unit, magnitude or currency carries (see WordFacts), else null. */
  words: WordFacts | null = null;
  /** The same word read at a sentence's start (a keyword), once asked for, else -1. */
  initialReading = -1;
  /** As a JSON number's canonical value (an id in `Lexicon.values`), once asked for, else -1. */
  jsonValue = -1;

  constructor(
    readonly id: number,
    readonly text: string,
    lower: string,
    readonly kind: TokenKind,
    readonly shape: number,
    readonly key: string,
    readonly shapeText: string,
    /** False for a content's token (see Lexicon.add): what only a source's facts ask is left out. */
    full: boolean,
  ) {
    this.word = kind === "keyword" ? KEYWORD : kind === "stop" ? STOP : 0;
    this.specHalves = kind === "stop" ? 0 : kind === "keyword" ? 1 : 2;
    let flags = 0;
    if (shapeText.charCodeAt(0) === 35 || shapeText.indexOf("=#") >= 0) flags |= VALUE_SHAPE;
    const isTime = kind === "datetime" || kind === "date" || kind === "time";
    if (isTime) flags |= IS_TIME;
    // Words only: a month, a unit, am/pm, a level, an error opener hold no digit and no dot but
    // "a.m", and open with a letter or a unit's sign.
    const c0 = lower.charCodeAt(0);
    if (
      lower.length <= 16 &&
      ((c0 >= 97 && c0 <= 122) || c0 === 37 || c0 === 36 || c0 === 0x20ac || c0 === 0xa3) &&
      NAMING_WORDS.has(lower)
    ) {
      const month = MONTHS.get(lower) ?? 0;
      const named = UNITS.get(lower);
      const unit = named && !ATTACHED_ONLY_UNITS.has(lower) ? named : "";
      if (lower === "am" || lower === "pm" || lower === "a.m" || lower === "p.m") flags |= AMPM;
      const magnitude = MAGNITUDES.get(lower) ?? 0;
      const currency = kind !== "number" && (named === "usd" || named === "eur" || named === "gbp") ? named : "";
      if (month > 0 || unit !== "" || magnitude > 0 || currency !== "")
        this.words = new WordFacts(month, unit, magnitude, currency);
    }
    if (full && (isTime || key !== "" || lower.length > 5 || LEAD_WORDS.has(lower))) {
      let level = lower;
      if (key) {
        const k = asciiLower(key);
        level = k === "level" || k === "lvl" || k === "severity" ? lower : "";
      }
      if (isTime || LOG_LEVELS.has(level)) flags |= LOG_LEAD;
      if (ERROR_LEVELS.has(level)) flags |= ERROR_LEVEL;
      // "TypeError", "IOException"; not a flag ("--exit-on-error", since floorline-facts/4).
      if (
        ERROR_OPENERS.has(lower) ||
        (lower.length > 5 && !lower.startsWith("-") && (lower.endsWith("error") || lower.endsWith("exception")))
      )
        flags |= OPENS_ERROR;
    }
    this.flags = flags;
  }

  /** Month of a month name (any kind), else 0. */
  get month(): number {
    return this.words?.month ?? 0;
  }
  /** The unit a word names, when the word follows a number ("GB"), else "". */
  get unit(): string {
    return this.words?.unit ?? "";
  }
  /** The power of ten a word scales the number before it by ("million": 6), else 0. */
  get magnitude(): number {
    return this.words?.magnitude ?? 0;
  }
  /** The currency a word or sign names when it stands before a number ("USD 5", "€ 5"), else "". */
  get currency(): string {
    return this.words?.currency ?? "";
  }
  /** A number's need as a string (`n:value` or `n:value|unit`), else "". */
  get numberNeed(): string {
    return this.num?.need ?? "";
  }
  /** Any number's value and unit (from its need), else null and "". */
  get numberRaw(): string | null {
    return this.num?.raw ?? null;
  }
  get numberUnit(): string {
    return this.num?.unit ?? "";
  }
  /** A plain number's canonical value (no unit), else null; and it as a small integer, else -1. */
  get numberValue(): string | null {
    return this.num?.value ?? null;
  }
  get small(): number {
    return this.num?.small ?? -1;
  }
  /** Where its atoms start in the pool: right after what it states. */
  get atomsFrom(): number {
    return this.indexTo;
  }
  get valueShape(): boolean {
    return (this.flags & VALUE_SHAPE) !== 0;
  }
  get ampm(): boolean {
    return (this.flags & AMPM) !== 0;
  }
  get isTime(): boolean {
    return (this.flags & IS_TIME) !== 0;
  }
  /** A word that is a name only by its capital ("Parquet"). */
  get capWord(): boolean {
    return (this.flags & CAP_WORD) !== 0;
  }
  /** A plain lower-case word. */
  get lowerWord(): boolean {
    return (this.flags & LOWER_WORD) !== 0;
  }
  /** A German function word ("und", "für"). */
  get germanWord(): boolean {
    return (this.flags & GERMAN_WORD) !== 0;
  }
  /** Leads a log line (a time or a level), is an error level, opens an error report. */
  get logLead(): boolean {
    return (this.flags & LOG_LEAD) !== 0;
  }
  get errorLevel(): boolean {
    return (this.flags & ERROR_LEVEL) !== 0;
  }
  get opensError(): boolean {
    return (this.flags & OPENS_ERROR) !== 0;
  }
  /** A keyword or a name of letters only. */
  get wordLike(): boolean {
    return (this.flags & WORD_LIKE) !== 0;
  }
  /** A value written in more than letters (a number in digits, a date, a path, an option): what a word may say something of. */
  get valueSign(): boolean {
    return this.word === 0 && (this.flags & LETTERS_ONLY) === 0;
  }
  /** A value a sentence must tie to a word or a name: a value sign that is no name (since /4). */
  get isValue(): boolean {
    return this.valueSign && this.kind !== "name";
  }
  /** The languages (bit i for language i of LANGUAGE_WORDS) of which it is a function word, else 0. */
  get languages(): number {
    return (this.flags & LANGUAGE_BITS) >> LANGUAGE_SHIFT;
  }
}

/** What a number token carries beyond any token: its need, value and unit, read once. */
export class NumberFacts {
  constructor(
    readonly need: string,
    readonly raw: string,
    readonly unit: string,
    /** Without a unit, the value; else null. */
    readonly value: string | null,
    /** The value as an integer of at most four digits, else -1. */
    readonly small: number,
  ) {}
}

/** What a word naming a month, a unit, a magnitude or a currency carries (most words name none). */
class WordFacts {
  constructor(
    readonly month: number,
    readonly unit: string,
    readonly magnitude: number,
    readonly currency: string,
  ) {}
}
