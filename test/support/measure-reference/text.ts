// Long because reading a text into tokens is written out plainly here, not imported from the
// fast code.
// The reference implementation of floorline-facts/4, part one: a text read into lines of
// tokens (docs/measurement.md, "Tokens"). Part two, index.ts, measures with them.
//
// From lib/measure this imports only what defines a token: `classify`, `withYearless` and
// `isCodeFile` (tokens.ts: what one raw token is, in the order of the docs' table), the character classes
// (chars.ts), the readers of times and decimals (values.ts) and the closed word lists
// (words.ts). How a text is cut into raw tokens, what spans raw tokens ("May 2, 2026", "4 GB")
// and German capitals are written out here, plainly: strings and arrays, no ids, no caches.
import { asciiLower, isWideSeparator, utf8Length } from "@/lib/measure/chars";
import { classify, isCapitalWord, isCodeFile, type TokenKind, withYearless } from "@/lib/measure/tokens";
import { readTime, shiftDecimal } from "@/lib/measure/values";
import {
  ATTACHED_ONLY_UNITS,
  ERROR_LEVELS,
  ERROR_OPENERS,
  GERMAN_WORDS,
  LANGUAGE_WORDS,
  LOG_LEVELS,
  MAGNITUDES,
  MONTHS,
  UNITS,
} from "@/lib/measure/words";

/** A token where it stands in a text. */
export interface Tok {
  /** As written (a joined token: its parts' texts, one space apart). */
  text: string;
  kind: TokenKind;
  /** The key of a `key=value` token, else "". */
  key: string;
  /** What it contributes to its line's template: its kind for values, its text for words. */
  shape: string;
  /** The keys a fact stated by it needs a content to state, all of them, in this order. */
  need: string[];
  /** The keys it states: its need, looser spellings, and a full date's day and month. */
  index: string[];
  /** Its text in lower case, one entry per token it was joined from: what sentences, runs and neighbours compare. */
  atoms: string[];
  /** A sentence ends after it. */
  ends: boolean;
  /** Only whitespace (or the line's end) follows it: it may be read with the next token. */
  open: boolean;
  /** Another part of the same raw token follows ("GNU/Linux"): they stay neighbours in any order of words. */
  inner: boolean;
  /**
   * Set aside by where it stands (since floorline-facts/4): a Markdown link's target, or a key
   * quoted as JSON quotes it (`"statusCode":`) or a setting's (`port = 5432`); its facts weigh
   * as context ("Facts").
   */
  aside: boolean;
  /** A comma with no space after it follows: a field separator (CSV; since floorline-facts/4). */
  field?: boolean;
}

/** A line of a text: as written (for an error line's display and a diff's notation) and its tokens. */
export interface Line {
  text: string;
  tokens: Tok[];
}

function fromClassified(t: ReturnType<typeof classify>[number]): Tok {
  return {
    text: t.text,
    kind: t.kind,
    key: t.key,
    shape: t.shape,
    need: t.need,
    // "A full date also as its day of the year and its month" ("Retained, recoverable, lost").
    index: withYearless(t.index),
    atoms: [asciiLower(t.text)],
    ends: false,
    open: false,
    inner: false,
    aside: false,
  };
}

/** The tokens one raw token stands for; a capital at a sentence's start says nothing ("Tokens": name). */
export function classifyRaw(raw: string, initial: boolean, allowPairs = true): Tok[] {
  let upper = false;
  for (let i = 0; i < raw.length; i++) if (raw.charCodeAt(i) >= 65 && raw.charCodeAt(i) <= 90) upper = true;
  const tokens = classify(raw, initial && upper, allowPairs).map(fromClassified);
  for (const t of tokens.slice(0, -1)) t.inner = true;
  return tokens;
}

/** A sentence is the same sentence, a run the same run, when its tokens' norms are. */
export const norm = (t: Tok) => t.atoms.join(" ");
/** UTF-8 bytes of a token and the space after it: its room in the content ("Density", efficiency). */
export const bytesOf = (t: Tok) => utf8Length(t.text) + 1;
/** A fact is worth 1 of specificity, a keyword ½, a stop word 0 ("Without a source"); counted in halves. */
export const halves = (t: Tok) => (t.kind === "stop" ? 0 : t.kind === "keyword" ? 1 : 2);
/** A value's shape (`#num`, `status=#num`): it varies between the records of one template ("Facts"). */
export const valueShape = (t: Tok) => t.shape.startsWith("#") || t.shape.includes("=#");
export const isTimeKind = (t: Tok) => t.kind === "datetime" || t.kind === "date" || t.kind === "time";

// --- what a word names (a month, a unit, a magnitude, a currency, am/pm) ---

interface WordFacts {
  month: number;
  unit: string;
  magnitude: number;
  currency: string;
  ampm: boolean;
}
const NO_WORD: WordFacts = { month: 0, unit: "", magnitude: 0, currency: "", ampm: false };

/** Only short words that open with a letter or a currency or percent sign name any of these. */
function wordFacts(t: Tok): WordFacts {
  const lower = asciiLower(t.text);
  const c0 = lower.charCodeAt(0);
  if (lower.length > 16 || !((c0 >= 97 && c0 <= 122) || c0 === 37 || c0 === 36 || c0 === 0x20ac || c0 === 0xa3))
    return NO_WORD;
  const named = UNITS.get(lower);
  return {
    month: MONTHS.get(lower) ?? 0,
    // "s", "h", "x" … count only written against their number ("5s"), never as a word after it.
    unit: named && !ATTACHED_ONLY_UNITS.has(lower) ? named : "",
    magnitude: MAGNITUDES.get(lower) ?? 0,
    currency: t.kind !== "number" && (named === "usd" || named === "eur" || named === "gbp") ? named : "",
    ampm: lower === "am" || lower === "pm" || lower === "a.m" || lower === "p.m",
  };
}

/** A number token's value and unit, read back from its need (`n:value` or `n:value|unit`). */
function numberOf(t: Tok): { raw: string; unit: string; value: string | null; small: number } | null {
  if (t.kind !== "number" || t.need.length !== 1) return null;
  const need = t.need[0] as string;
  const bar = need.indexOf("|");
  const raw = bar < 0 ? need.slice(2) : need.slice(2, bar);
  // A small whole number (at most four digits) may be a day, a year or an hour.
  const small = bar < 0 && raw.length <= 4 && /^[0-9]*$/.test(raw) ? Number(raw) : -1;
  return { raw, unit: bar < 0 ? "" : need.slice(bar + 1), value: bar < 0 ? raw : null, small };
}

const smallUpTo = (t: Tok, max: number) => {
  const small = numberOf(t)?.small ?? -1;
  return small >= 1 && small <= max ? small : -1;
};

// --- cutting a line into raw tokens ---

// ASCII that always ends a token: blanks and controls, brackets, quotes, ; | ! ? *.
const BREAKS = new Set([...'()[]{}<>"`|;!?*'].map((c) => c.charCodeAt(0)));
const isBreak = (c: number) => c <= 32 || c === 127 || BREAKS.has(c);
const isAsciiDigit = (c: number) => c >= 48 && c <= 57;
const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** Kana, CJK ideographs, half-width katakana: script that has no spaces. */
export function isCjk(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff66 && c <= 0xff9f)
  );
}

/** CJK and full-width punctuation (、。「」（），：！？ …): it separates tokens. */
function isCjkPunctuation(c: number): boolean {
  return (
    (c >= 0x3001 && c <= 0x3003) ||
    (c >= 0x3008 && c <= 0x3011) ||
    (c >= 0x3014 && c <= 0x301f) ||
    (c >= 0xff01 && c <= 0xff0f) ||
    (c >= 0xff1a && c <= 0xff20) ||
    (c >= 0xff3b && c <= 0xff40) ||
    (c >= 0xff5b && c <= 0xff65)
  );
}

/** 。！？ and the full-width full stop end a sentence as . ! ? do. */
const isCjkSentenceEnd = (c: number) => c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff0e;

/**
 * Whether the character at `i` of `line` ends a token: a comma unless it separates thousands
 * (a digit before, exactly three after, then no digit), an apostrophe unless between two letters.
 */
function breaksAt(line: string, i: number): boolean {
  const c = line.charCodeAt(i);
  if (c >= 128) return isWideSeparator(c) || isCjkPunctuation(c);
  if (isBreak(c)) return true;
  const digit = (k: number) => k >= 0 && k < line.length && isAsciiDigit(line.charCodeAt(k));
  if (c === 44) return !(digit(i - 1) && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4));
  if (c === 39) {
    const letter = (k: number) => {
      if (k < 0 || k >= line.length) return false;
      const d = line.charCodeAt(k);
      return d < 128 ? isAsciiLetter(d) : !isWideSeparator(d);
    };
    return !(letter(i - 1) && letter(i + 1));
  }
  return false;
}

/**
 * Whether the raw token at `start` is a Markdown link's target: it follows `](` (`[text](url)`,
 * an image's too), or it is a URL after a link definition's label (`[label]: https://…`, the
 * label closing at the line's first `]`; not a path, which a log line's `[ERROR]: /var/…` is).
 */
function isLinkTarget(line: string, start: number): boolean {
  if (line.slice(Math.max(0, start - 2), start) === "](") return true;
  const definition = /^[ \t]*\[[^\]]*\]:[ \t]+$/.exec(line.slice(0, start));
  return definition !== null && /^https?:\/\//.test(line.slice(start));
}

/**
 * Whether the raw token at `[start, end)` is a key quoted as JSON quotes one: `"statusCode":`.
 * (A line's first token with `=` after it, `port = 5432`, is a setting's key: tokenizeLine.)
 */
function isQuotedKey(line: string, start: number, end: number): boolean {
  return line[start - 1] === '"' && line.slice(end, end + 2) === '":';
}

/** The tokens of one line ("Tokens"), with what spans raw tokens joined. */
export function tokenizeLine(line: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  // The first token of the line, and the first after a sentence's end, open a sentence.
  let initial = true;
  let anyRaw = false;
  // The last token of the previous raw token (none when it gave no token: `$`, `--`).
  let previousLast: Tok | undefined;
  while (i < line.length) {
    while (i < line.length && breaksAt(line, i)) i++;
    if (i >= line.length) break;
    const start = i;
    // A token is of one script: CJK text has no spaces ("最大8 GB" is 最大, 8 and GB).
    const cjk = isCjk(line.charCodeAt(start));
    for (; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (c < 128 && (cjk || isBreak(c) || ((c === 44 || c === 39) && breaksAt(line, i)))) break;
      if (c >= 128 && (isWideSeparator(c) || isCjkPunctuation(c) || isCjk(c) !== cjk)) break;
    }
    const after = i < line.length ? line.charCodeAt(i) : -1;
    // A `!` or `?` after the token, or a trimmed full stop, ends the sentence.
    let ends = after === 33 || after === 63 || isCjkSentenceEnd(after);
    let a = start;
    let b = i;
    // Markdown's `_emphasis_` is notation too (since floorline-facts/4).
    while (b > a && ".,:='_".includes(line[b - 1] as string)) {
      if (line[b - 1] === ".") ends = true;
      b--;
    }
    while (a < b && ",:='_".includes(line[a] as string)) a++;
    if (b > a) {
      const tokens = classifyRaw(line.slice(a, b), initial);
      const key = isQuotedKey(line, start, i) || (!anyRaw && /^[ \t]*=(?!=)/.test(line.slice(b)));
      if (isLinkTarget(line, start) || key) for (const t of tokens) t.aside = true;
      // Only the last token of a raw token knows what follows it.
      previousLast = tokens[tokens.length - 1];
      if (previousLast) {
        previousLast.ends = ends;
        previousLast.open = b === i && after <= 32;
        previousLast.field = b === i && after === 44 && i + 1 < line.length && line.charCodeAt(i + 1) > 32;
      }
      out.push(...tokens);
      anyRaw = true;
      initial = ends;
    } else if (ends && anyRaw) {
      // A lone "." ends the sentence of the raw token before it.
      if (previousLast) previousLast.ends = true;
      initial = true;
    }
    // A position in code in brackets right after its file (`orders.ts(8,57)`, as tsc writes
    // it) is read past: the file is the fact.
    const position = /^\(\d+(,\d+)?\)/.exec(line.slice(i));
    if (position && b === i && b > a && isCodeFile(line.slice(a, b))) i += position[0].length;
  }
  return joinAcross(out);
}

// --- what spans raw tokens ---

/** A token made of several ("4 GB", "May 2 2026"): it compares as its parts, and knows what the last one does. */
function joined(parts: Tok[], kind: TokenKind, need: string, index: string[], shape: string, key: string): Tok {
  const last = parts[parts.length - 1] as Tok;
  return {
    text: parts.map((p) => p.text).join(" "),
    kind,
    key,
    shape,
    need: [need],
    index: withYearless(index),
    atoms: parts.flatMap((p) => p.atoms),
    ends: last.ends,
    open: last.open,
    field: last.field,
    inner: last.inner,
    aside: last.aside,
  };
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** One date of a month name and numbers: `YYYY-MM-DD`, `--MM-DD` without a year, `YYYY-MM` without a day. */
function date(parts: Tok[], y: number, m: number, d: number): Tok {
  const key = d === 0 ? `d:${y}-${pad2(m)}` : y > 0 ? `d:${y}-${pad2(m)}-${pad2(d)}` : `d:--${pad2(m)}-${pad2(d)}`;
  return joined(parts, "date", key, [key], "#date", "");
}

/** A number written out with a unit or currency: states the plain value too ("4 GB" states 4). */
function number(parts: Tok[], value: string, unit: string, like: Tok): Tok {
  const plain = `n:${value}`;
  const need = unit ? `${plain}|${unit}` : plain;
  return joined(parts, "number", need, unit ? [plain, need] : [plain], like.shape, like.key);
}

/** Units a magnitude word may scale a number with: none, or a currency ("$3 billion"). */
const scalable = (unit: string) => unit === "" || unit === "usd" || unit === "eur" || unit === "gbp";

/**
 * Joins, left to right, what the docs' table reads across tokens: "May 2, 2026", "May 2",
 * "April 2026" and "2 May 2026" into one date; a number and its unit word ("4 GB"); a number
 * and a magnitude word, and a unit after it ("4.2 million USD"); a number or time and am/pm
 * ("2 pm"); a currency before its number, and a magnitude after it ("USD 1.5 million"). A
 * joined token is not joined again, and a sentence's end stops a date; the number joins need
 * only whitespace between the tokens ("open").
 */
function joinAcross(tokens: Tok[]): Tok[] {
  const out: Tok[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Tok;
    const next = tokens[i + 1];
    const third = tokens[i + 2];
    let made: Tok | null = null;
    let span = 1;
    if (next) {
      const month = t.kind === "number" ? 0 : wordFacts(t).month;
      if (month > 0 && !t.ends) {
        const day = smallUpTo(next, 31);
        if (day > 0) {
          const year = third && !next.ends ? smallUpTo(third, 2999) : -1;
          if (third && year >= 1000) [made, span] = [date([t, next, third], year, month, day), 3];
          else [made, span] = [date([t, next], 0, month, day), 2];
        } else if (smallUpTo(next, 2999) >= 1000) {
          [made, span] = [date([t, next], smallUpTo(next, 2999), month, 0), 2];
        }
      }
      if (!made && third && !t.ends && smallUpTo(t, 31) > 0) {
        const nextMonth = wordFacts(next).month;
        const year = smallUpTo(third, 2999);
        if (nextMonth > 0 && year >= 1000 && !next.ends)
          [made, span] = [date([t, next, third], year, nextMonth, smallUpTo(t, 31)), 3];
      }
      const num = numberOf(t);
      if (!made && t.open && (t.kind === "number" || t.kind === "time")) {
        const word = wordFacts(next);
        if (num && num.value !== null && word.unit !== "") {
          [made, span] = [number([t, next], num.value, word.unit, t), 2];
        } else if (num && word.magnitude > 0 && scalable(num.unit)) {
          const unit = third && num.unit === "" && next.open && wordFacts(third).unit !== "" ? third : null;
          const unitName = unit ? wordFacts(unit).unit : num.unit;
          const parts = unit ? [t, next, unit] : [t, next];
          [made, span] = [number(parts, shiftDecimal(num.raw, word.magnitude), unitName, t), parts.length];
        } else if (word.ampm) {
          const ampm = asciiLower(next.text);
          const hour = num && num.small >= 1 && num.small <= 12 ? num.small : -1;
          const time =
            t.kind === "time" ? readTime(`${t.text}${ampm}`) : hour > 0 ? readTime(`${hour}:00${ampm}`) : null;
          if (time) [made, span] = [joined([t, next], "time", time[0], [time[0]], "#time", ""), 2];
        }
      }
      const nextNum = numberOf(next);
      const currency = wordFacts(t).currency;
      if (!made && currency !== "" && t.open && nextNum && nextNum.value !== null) {
        const word = third && wordFacts(third).magnitude > 0 && next.open ? third : null;
        const value = word ? shiftDecimal(nextNum.value, wordFacts(word).magnitude) : nextNum.value;
        const parts = word ? [t, next, word] : [t, next];
        [made, span] = [number(parts, value, currency, next), parts.length];
      }
    }
    out.push(made ?? t);
    i += span - 1;
  }
  return out;
}

// --- a text ---

/** Words a text must have before its capitals are judged, and the shares that make it German. */
const MIN_WORDS = 12;
const CAPITAL_SHARE = 0.25;
const GERMAN_SHARE = 0.15;

/** A plain word (no key, no value shape) in lower case, as its shape says. */
const plainWord = (t: Tok) => t.key === "" && t.shape === asciiLower(t.text);
/** A word that is a name only by its capital ("Parquet", "Unterstützung"; not "CSV"). */
const capWord = (t: Tok) => t.kind === "name" && plainWord(t) && isCapitalWord(t.text);
const lowerWord = (t: Tok) =>
  (t.kind === "keyword" || t.kind === "stop") && plainWord(t) && isAsciiLower(t.text.charCodeAt(0));
const germanWord = (t: Tok) =>
  (t.kind === "keyword" || t.kind === "stop") && plainWord(t) && GERMAN_WORDS.has(asciiLower(t.text));
const isAsciiLower = (c: number) => c >= 97 && c <= 122;

/**
 * German capitalises its nouns ("Tokens", last paragraph): in a text (or a JSON string) of at
 * least 12 words, a quarter or more of them capitalised mid-sentence and a sixth or more of the
 * lower-case ones German function words, such capitalised words read as keywords, as they would
 * at a sentence's start. Counted over all of the text's tokens at once, after the joins.
 */
export function readCapitals(tokens: Tok[]): Tok[] {
  let capitals = 0;
  let lower = 0;
  let german = 0;
  for (const t of tokens) {
    if (capWord(t)) capitals++;
    if (lowerWord(t)) lower++;
    if (germanWord(t)) german++;
  }
  const words = capitals + lower;
  if (words < MIN_WORDS || capitals < words * CAPITAL_SHARE || german < lower * GERMAN_SHARE) return tokens;
  return tokens.map((t) => {
    if (!capWord(t)) return t;
    const [initial] = classify(t.text, true, false);
    return initial
      ? { ...fromClassified(initial), ends: t.ends, open: t.open, inner: t.inner, aside: t.aside, field: t.field }
      : t;
  });
}

/** A text's lines, one per line feed, each with its tokens; German capitals read over the whole text. */
export function readLines(text: string): Line[] {
  const lines = text.split("\n").map((line) => ({ text: line, tokens: tokenizeLine(line) }));
  const read = readCapitals(lines.flatMap((l) => l.tokens));
  let k = 0;
  for (const line of lines) line.tokens = line.tokens.map(() => read[k++] as Tok);
  return lines;
}

// --- languages and phrases ("Density", words; version 4) ---

/** Letters only, in any script. */
const LETTERS = /^\p{L}+$/u;
/** A word: a keyword or a name of letters only, no `key=`. */
export const wordLike = (t: Tok) => t.key === "" && (t.kind === "name" || t.kind === "keyword") && LETTERS.test(t.text);
/** A value written in more than letters: a number in digits, a date, a path, an option. */
const valueSign = (t: Tok) => t.kind !== "keyword" && t.kind !== "stop" && !LETTERS.test(t.text);
/** A value a sentence must tie to a word or a name: a value sign that is no name. */
export const isValue = (t: Tok) => valueSign(t) && t.kind !== "name";
/** The languages (bit i for LANGUAGE_WORDS[i]) of which a plain lower-case-read word is a function word. */
function languagesOf(t: Tok): number {
  if ((t.kind !== "keyword" && t.kind !== "stop") || !plainWord(t)) return 0;
  const lower = asciiLower(t.text);
  let bits = 0;
  LANGUAGE_WORDS.forEach((words, i) => {
    if (words.has(lower)) bits |= 1 << i;
  });
  return bits;
}

/**
 * A text's language: 1 + the index in LANGUAGE_WORDS of the language whose function words it
 * uses most, when that is at least 8 of them, a tenth of its words (words and function words)
 * and more than of any other language; else 0.
 */
export function languageOf(lines: readonly Line[]): number {
  const tokens = lines.flatMap((l) => l.tokens);
  const hits = LANGUAGE_WORDS.map((_, i) => tokens.filter((t) => (languagesOf(t) >> i) & 1).length);
  const words = tokens.filter((t) => wordLike(t) || languagesOf(t) !== 0).length;
  const best = Math.max(...hits);
  const at = hits.indexOf(best);
  const others = hits.filter((_, i) => i !== at);
  return best >= 8 && best >= words * 0.1 && others.every((n) => n < best) ? at + 1 : 0;
}

/**
 * Of a text's words (function words aside), how many stand in a phrase: within two tokens of a
 * function word (of any language) or of a value sign, in the same stretch. A stretch is a line
 * cut after each token that ends a sentence or has no whitespace after it (punctuation), except
 * inside one raw token. And of its values, how many are tied: their sentence (a line cut after
 * each token that ends a sentence) holds a name, a keyword or a stop word.
 */
export function phrasingOf(lines: readonly Line[]): { words: number; phrased: number; values: number; bound: number } {
  let words = 0;
  let phrased = 0;
  let values = 0;
  let bound = 0;
  for (const line of lines) {
    const sentences: Tok[][] = [[]];
    for (const t of line.tokens) {
      (sentences[sentences.length - 1] as Tok[]).push(t);
      if (t.ends) sentences.push([]);
    }
    for (const sentence of sentences) {
      const count = sentence.filter(isValue).length;
      values += count;
      if (sentence.some((t) => !isValue(t) && (t.kind === "name" || t.kind === "keyword" || t.kind === "stop")))
        bound += count;
    }
    const stretches: Tok[][] = [[]];
    for (const t of line.tokens) {
      (stretches[stretches.length - 1] as Tok[]).push(t);
      if (!t.inner && (t.ends || !t.open)) stretches.push([]);
    }
    for (const stretch of stretches) {
      stretch.forEach((t, k) => {
        if (!wordLike(t) || languagesOf(t) !== 0) return;
        words++;
        const near = stretch.slice(Math.max(0, k - 2), k + 3);
        if (near.some((n) => languagesOf(n) !== 0 || valueSign(n))) phrased++;
      });
    }
  }
  return { words, phrased, values, bound };
}

// --- what a log line's tokens say ("Facts": logs, error lines) ---

/** The level a token names: its text, or a `level=`, `lvl=` or `severity=` value; else "". */
function levelWord(t: Tok): string {
  if (!t.key) return asciiLower(t.text);
  const key = asciiLower(t.key);
  return key === "level" || key === "lvl" || key === "severity" ? asciiLower(t.text) : "";
}

/** A time or a log level: what leads a log line. */
export const logLead = (t: Tok) => isTimeKind(t) || LOG_LEVELS.has(levelWord(t));
export const errorLevel = (t: Tok) => ERROR_LEVELS.has(levelWord(t));

/** "Traceback", "Error", "TypeError", "IOException", "failed" (not a flag: "--exit-on-error"). */
export function opensError(t: Tok): boolean {
  const lower = asciiLower(t.text);
  return (
    ERROR_OPENERS.has(lower) ||
    (lower.length > 5 && !lower.startsWith("-") && (lower.endsWith("error") || lower.endsWith("exception")))
  );
}
