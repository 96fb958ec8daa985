// Longer than most modules on purpose: the order of the classification tests is part of the
// method, and it reads as one list only in one place.
// Classification of one token, the ground every format stands on. Written as plain character
// tests (no regular expressions, no locale, ASCII case folding only) so that a port to another
// language is line by line and gives the same tokens. docs/measurement.md states the rules in
// prose; the order of the tests below is part of them. Splitting text into tokens, and joining
// what spans tokens ("May 2, 2026", "4 GB"), is scan.ts's.
import { asciiLower, isAlnum, isDigit, isHexLetter, isLetter, isLower, isUpper, stem } from "./chars";
import {
  digitsAt,
  isUtcOffset,
  readDottedOrSlashedDate,
  readEpoch,
  readIsoDate,
  readLogDate,
  readNumber,
  readTime,
  shiftDecimal,
} from "./values";
import { ELISIONS, NUMBER_WORDS, ORDINAL_SUFFIXES, STOP_WORDS, UNITS } from "./words";

export { asciiLower, stem, utf8Length } from "./chars";

export type TokenKind =
  | "url"
  | "email"
  | "hash"
  | "ip"
  | "datetime"
  | "date"
  | "time"
  | "version"
  | "number"
  | "path"
  | "name"
  | "keyword"
  | "stop";

export interface Token {
  /** As written, without the punctuation around it. */
  text: string;
  kind: TokenKind;
  /** The keys a fact stated by this token needs an index to hold (all of them). */
  need: string[];
  /** The keys this token adds to an index: its need plus looser spellings of it. */
  index: string[];
  /** What the token contributes to its line's template: its kind for values, its text for words. */
  shape: string;
  /** `key` of a `key=value` token, so that lost examples can say what a value was. */
  key: string;
  /** The token closes a sentence (a `.`, `!` or `?` after it). */
  ends: boolean;
  /** Only whitespace follows it: it may be read together with the next token ("4 GB"). */
  open: boolean;
}

// --- token shapes ---

function allHex(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c) && !isHexLetter(c)) return false;
  }
  return true;
}

function isHash(s: string): boolean {
  if (s.length < 7 || !allHex(s)) return false;
  let digit = false;
  let letter = false;
  for (let i = 0; i < s.length; i++) {
    if (isDigit(s.charCodeAt(i))) digit = true;
    else letter = true;
  }
  return digit && letter;
}

/**
 * A hash's key: its first 7 characters (lower case), so a hash abbreviated as git abbreviates
 * it (`018a022`, `a4f5856a…`) states the full one (since floorline-facts/4).
 */
const hashKey = (lower: string) => `h:${lower.slice(0, 7)}`;

function isUuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!isDigit(c) && !isHexLetter(c)) return false;
  }
  return true;
}

function isIpv4(s: string): boolean {
  let dots = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 46) dots++;
  if (dots !== 3) return false;
  const colon = s.indexOf(":");
  const host = colon >= 0 ? s.slice(0, colon) : s;
  if (colon >= 0 && digitsAt(s, colon + 1, s.length - colon - 1) < 0) return false;
  const parts = host.split(".");
  if (parts.length !== 4) return false;
  return parts.every((p) => p.length >= 1 && p.length <= 3 && digitsAt(p, 0, p.length) >= 0 && Number(p) <= 255);
}

const URL_PREFIXES = ["http://", "https://", "ftp://", "ws://", "wss://", "file://", "www."];
const HASH_PREFIXES = ["sha256:", "sha1:", "md5:", "sha512:", "ccr:"];
const NONE: readonly string[] = [];

function isEmail(s: string): boolean {
  const at = s.indexOf("@");
  if (at <= 0 || at !== s.lastIndexOf("@")) return false;
  const domain = s.slice(at + 1);
  const dot = domain.indexOf(".");
  return dot > 0 && dot < domain.length - 1;
}

/** Version: v1, v1.2, 1.2.3, 1.2.3-rc.1 (a plain 1.2 is a number). Canonical without the v. */
function readVersion(s: string): string | null {
  let i = 0;
  const v = s.charCodeAt(0) === 118 || s.charCodeAt(0) === 86;
  if (v) i = 1;
  let dots = 0;
  let digits = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) digits++;
    else if (c === 46 && digits > 0 && i + 1 < s.length && isDigit(s.charCodeAt(i + 1))) dots++;
    else break;
    i++;
  }
  if (digits === 0 || (!v && dots < 2)) return null;
  if (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 45 && c !== 43) return null;
    for (let k = i + 1; k < s.length; k++) if (!isAlnum(s.charCodeAt(k)) && s.charCodeAt(k) !== 46) return null;
  }
  return `v:${asciiLower(s.slice(v ? 1 : 0))}`;
}

function isPath(s: string): boolean {
  const c0 = s.charCodeAt(0);
  if (c0 === 47) return s.length > 1 && isAlnum(s.charCodeAt(1));
  if (s.startsWith("./") || s.startsWith("../") || s.startsWith("~/")) return s.length > 2;
  if (s.length > 3 && isLetter(c0) && s.charCodeAt(1) === 58 && s.charCodeAt(2) === 92) return true;
  const slash = s.indexOf("/");
  if (slash <= 0 || slash === s.length - 1) return false;
  let slashes = 0;
  let marked = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 47) slashes++;
    else if (c === 46 || c === 95 || isDigit(c)) marked = true;
  }
  return slashes >= 2 || marked;
}

/**
 * Extensions of source code files: such a file's name followed by `:line` or `:line:column` is a
 * position in code (`git.c:460`, `src/a.ts:12:5`). A web host's name (`db.example.com:5432`)
 * ends in no such extension, so its port stays.
 */
const CODE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    "c h cc cpp cxx hpp hh go rs py pyx js mjs cjs jsx ts mts cts tsx java kt kts scala rb php cs fs " +
    "swift lua pl pm sh bash zig ex exs erl hs ml dart vue svelte sql groovy clj jl nim"
  ).split(" "),
);

/** Whether a token names a source code file: a name, a dot and a code extension (`orders.ts`). */
export function isCodeFile(text: string): boolean {
  const dot = text.lastIndexOf(".");
  if (dot <= 0 || (!isAlnum(text.charCodeAt(dot - 1)) && text.charCodeAt(dot - 1) !== 95)) return false;
  return CODE_EXTENSIONS.has(asciiLower(text.slice(dot + 1)));
}

/**
 * The end of a position in code written in brackets right after its file, as tsc and MSBuild
 * write it (`orders.ts(8,57)`, `Program.cs(12,5)`, `a.c(7)`): the index after `)` of
 * `(line)` or `(line,column)` at `i` of `s`, before `to`; -1 when there is none.
 */
export function bracketedPosition(s: string, i: number, to: number): number {
  if (s.charCodeAt(i) !== 40) return -1;
  let k = i + 1;
  for (let part = 0; part < 2; part++) {
    const digits = k;
    while (k < to && isDigit(s.charCodeAt(k))) k++;
    if (k === digits || k >= to) return -1;
    if (s.charCodeAt(k) === 41) return k + 1;
    if (part > 0 || s.charCodeAt(k) !== 44) return -1;
    k++;
  }
  return -1;
}

/**
 * Where a position in code begins in a token: the index of its `:line` or `:line:column` after a
 * code file's name or a Node module (`node:events:524:28`, `node:internal/timers:594:17`), else
 * -1. A reader of a trace or a diagnostic needs the file; the line a build numbered is incidental
 * (since floorline-facts/4), so the token is read as the file alone.
 */
function codePosition(text: string): number {
  let end = text.length;
  let at = -1;
  for (let k = 0; k < 2; k++) {
    let i = end;
    while (i > 0 && isDigit(text.charCodeAt(i - 1))) i--;
    if (i === end || i < 2 || text.charCodeAt(i - 1) !== 58) break;
    end = i - 1;
    at = end;
  }
  if (at < 0) return -1;
  // A Node module's name holds no colon: `node:1:1:1` is no module, and is read once, not
  // once per pair of its numbers.
  if (at > 5 && text.startsWith("node:")) return text.indexOf(":", 5) === at ? at : -1;
  return isCodeFile(text.slice(0, at)) ? at : -1;
}

// A word's shape, as bits of one number (no object per call: every token asks it).
const LETTERS = 1;
const DIGIT = 2;
const UPPER_INSIDE = 4;
const ALL_UPPER = 8;
const UNDERSCORE = 16;
const INNER_DOT = 32;
/** Only letters, digits and - _ . ' : a single word-like run. */
const PLAIN = 64;

function shapeOf(s: string): number {
  let shape = ALL_UPPER | PLAIN;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isLetter(c)) {
      shape |= LETTERS;
      if (isLower(c)) shape &= ~ALL_UPPER;
      if (i > 0 && isUpper(c) && isLower(s.charCodeAt(i - 1))) shape |= UPPER_INSIDE;
    } else if (isDigit(c)) shape |= DIGIT;
    else if (c === 95) shape |= UNDERSCORE;
    else if (c === 46) {
      if (i > 0 && i < s.length - 1 && isAlnum(s.charCodeAt(i - 1)) && isAlnum(s.charCodeAt(i + 1))) shape |= INNER_DOT;
      else shape &= ~PLAIN;
    } else if (c !== 45 && c !== 39) shape &= ~PLAIN;
  }
  return shape;
}

/** Letters and digits joined by + or : as well ("UTC+5:45", "sha256:abc", "en-US+1"). */
function isOffsetLike(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c !== 43 && c !== 58 && c !== 45 && c !== 95 && c !== 46) return false;
  }
  return true;
}

// --- building tokens ---

function token(text: string, kind: TokenKind, need: string[], index: string[], shape: string): Token {
  return { text, kind, need, index, shape, key: "", ends: false, open: false };
}

/**
 * A full date also states its day of the year, its month and its year: "2026-02-24" says what
 * "February 24", "February 2026" and the number 2026 say (the year since floorline-facts/4: git's
 * `Sat Dec 5 09:28:11 2026` writes it apart).
 * Applied to every token's index keys as the token is taken in.
 */
export function withYearless(index: string[]): string[] {
  let out = index;
  for (const key of index) {
    if (key.length === 12 && key.startsWith("d:") && isDigit(key.charCodeAt(2))) {
      if (out === index) out = [...index];
      out.push(`d:--${key.slice(7)}`, key.slice(0, 9), `n:${Number(key.slice(2, 6))}`);
    }
  }
  return out;
}

/**
 * A word that is a name only by its capital: capitalised, not all capitals, no capital inside
 * ("Parquet", "Unterstützung"; not "CSV", "PostgreSQL"). Where a text capitalises most such
 * words, as German does its nouns, the capital says nothing and the word reads as a keyword.
 */
export function isCapitalWord(text: string): boolean {
  if (!isUpper(text.charCodeAt(0))) return false;
  return (shapeOf(text) & (ALL_UPPER | UPPER_INSIDE)) === 0;
}

/** The keys any word-like token adds to an index, so a name, a keyword and a flag can meet. */
function wordIndex(lower: string): string[] {
  let bare = lower;
  while (bare.startsWith("-")) bare = bare.slice(1);
  return [`w:${stem(bare)}`, `c:${bare}`];
}

/**
 * The keys a `key=value` token's key adds (its name: "id", "path", "status"): the same few names
 * on every line of a log, so each is built once and its strings are the same ones each time.
 */
const keyIndexes = new Map<string, readonly string[]>();

function keyIndex(keyLower: string): readonly string[] {
  let index = keyIndexes.get(keyLower);
  if (index === undefined) {
    if (keyIndexes.size >= 4096) keyIndexes.clear();
    index = wordIndex(keyLower);
    keyIndexes.set(keyLower, index);
  }
  return index;
}

function numberToken(text: string, value: string, unit: string): Token {
  const plain = `n:${value}`;
  const need = unit ? `${plain}|${unit}` : plain;
  return token(text, "number", [need], unit ? [plain, need] : [plain], "#num");
}

/**
 * A function word elided before another one is one too: "qu'il", "d'une", "c'est", "jusqu'à"
 * (ELISIONS in words.ts). The tokens keep such a word whole; "l'option" stays a word.
 */
function isElidedStop(lower: string): boolean {
  const quote = lower.indexOf("'");
  return quote > 0 && ELISIONS.has(lower.slice(0, quote)) && STOP_WORDS.has(lower.slice(quote + 1));
}

function wordToken(text: string, initial: boolean): Token {
  const lower = asciiLower(text);
  if (STOP_WORDS.has(lower) || lower.length < 2 || isElidedStop(lower)) return token(text, "stop", [], [], lower);
  const shape = shapeOf(text);
  const c0 = text.charCodeAt(0);
  const capital = isUpper(c0);
  // A hyphenated word states its parts too, and needs only them: "Parquet-Export" is stated by
  // "export to Parquet", "CSV time zones" by "CSV-Zeitzonen"'s CSV.
  const parts = lower.indexOf("-") > 0 ? hyphenParts(lower) : null;
  const index = wordIndex(lower);
  // Without a leading hyphen, the index's own strings are the keys a whole word needs.
  const own = lower.charCodeAt(0) !== 45;
  if (parts) for (const part of parts) index.push(...wordIndex(part));
  // A capital word is a name unless it merely opens a sentence; acronyms and inner capitals
  // (CSV, PostgreSQL) are names wherever they stand.
  if ((capital && (!initial || ((shape & ALL_UPPER) !== 0 && text.length >= 2))) || (shape & UPPER_INSIDE) !== 0) {
    return token(text, "name", partsNeed(parts, "c") ?? [own ? (index[1] as string) : `c:${lower}`], index, lower);
  }
  if (lower.length < 3) return token(text, "stop", [], [], lower);
  return token(
    text,
    "keyword",
    partsNeed(parts, "w") ?? [own ? (index[0] as string) : `w:${stem(lower)}`],
    index,
    lower,
  );
}

/**
 * The kind `classify` gives a word of ASCII letters alone (`lower` is its lower case), or null
 * for a number word ("fifteen"): what the lexicon's path for plain words takes in without
 * building the token (see Lexicon.plainWord; reference.test.ts holds the two paths equal). Such
 * a word's keys are wordToken's: `w:` and its stem, then `c:` and itself; a name needs the
 * second, a keyword the first, a stop word states nothing.
 */
export function plainWordKind(text: string, lower: string, initial: boolean): TokenKind | null {
  if (NUMBER_WORDS.has(lower)) return null;
  if (STOP_WORDS.has(lower) || lower.length < 2) return "stop";
  const shape = shapeOf(text);
  if ((shape & UPPER_INSIDE) !== 0) return "name";
  if (isUpper(text.charCodeAt(0))) {
    if (!initial || ((shape & ALL_UPPER) !== 0 && text.length >= 2)) return "name";
  }
  return lower.length < 3 ? "stop" : "keyword";
}

function hyphenParts(lower: string): string[] | null {
  const parts = lower.split("-").filter((p) => p.length > 0);
  return parts.length > 1 ? parts : null;
}

/** What a hyphenated word needs: its parts that are not stop words, as names (c) or keywords (w). */
function partsNeed(parts: string[] | null, as: "c" | "w"): string[] | null {
  if (!parts) return null;
  const need: string[] = [];
  for (const part of parts) {
    if (STOP_WORDS.has(part) || part.length < (as === "c" ? 2 : 3)) continue;
    const key = as === "c" ? `c:${part}` : `w:${stem(part)}`;
    if (!need.includes(key)) need.push(key);
  }
  return need.length > 0 ? need : null;
}

/**
 * The power of ten a suffix written against a number stands for: k or K a thousand, M a million
 * (a lower-case m is a unit), bn a billion, and B a billion after a currency ("$1.2B"; "4B"
 * alone is bytes). The suffix must be the whole rest of the token: "10kb" is kilobytes.
 */
function magnitude(suffix: string, currency: boolean): number {
  if (suffix === "k" || suffix === "K") return 3;
  if (suffix === "M") return 6;
  if (asciiLower(suffix) === "bn" || (suffix === "B" && currency)) return 9;
  return 0;
}

/**
 * Runs of one token read, at most (since floorline-facts/4): `1:1:1:…` or `a=a=…` written without
 * a space is one token of a million runs, which no reader takes facts from one by one, and
 * which cost a measurement several times what text of its size costs. The rest is not read.
 */
const MAX_RUNS = 64;

/** Splits a token no rule recognises into its alphanumeric runs, each read as a word or number. */
function compound(text: string, initial: boolean): Token[] {
  const out: Token[] = [];
  let i = 0;
  let runs = 0;
  while (i < text.length && runs < MAX_RUNS) {
    while (i < text.length && !isAlnum(text.charCodeAt(i))) i++;
    const start = i;
    while (i < text.length && isAlnum(text.charCodeAt(i))) i++;
    if (i > start) {
      runs++;
      const part = text.slice(start, i);
      out.push(...classify(part, initial && out.length === 0, false));
    }
  }
  return out;
}

/**
 * Classifies one token. Order matters and is part of the method: key=value, URL, e-mail,
 * UUID, hash, IPv4, ISO date(time), other dates, time range, time, Unix time, version, #ref,
 * UTC offset, number, flag, path, identifier, word; anything else is split into its
 * alphanumeric runs.
 */
export function classify(text: string, initial: boolean, allowPairs = true): Token[] {
  // A percent sign written apart from its number ("38 %") is read as the number's unit.
  if (text === "%") return [token(text, "stop", [], [], "%")];
  const lower = asciiLower(text);
  // A word of ASCII letters alone, most of any text, meets none of the tests before the word's.
  if (asciiLettersOnly(text)) {
    const spelled = numberWord(lower);
    return [spelled === null ? wordToken(text, initial) : spelledNumber(text, spelled)];
  }
  const position = codePosition(text);
  if (position > 0) return classify(text.slice(0, position), initial, allowPairs);
  const eq = allowPairs ? text.indexOf("=") : -1;
  if (eq > 0 && eq < text.length - 1 && isLetter(text.charCodeAt(0))) {
    const key = text.slice(0, eq);
    if ((shapeOf(key) & PLAIN) !== 0 && !key.includes("'")) {
      const keyLower = asciiLower(key);
      const value = text.slice(eq + 1);
      const read = readNumber(value, 0);
      const unit = UNITS.get(keyLower);
      const inner =
        read && read.end === value.length && unit
          ? [numberToken(value, read.value, unit)]
          : classify(value, false, false);
      for (const t of inner) {
        t.shape = `${keyLower}=${t.kind === "stop" || t.kind === "keyword" ? t.shape : `#${t.kind}`}`;
        t.key = key;
        // Each token's index is an array of its own: extended in place.
        for (const k of keyIndex(keyLower)) t.index.push(k);
      }
      return inner;
    }
  }
  // Every URL prefix opens with h, f or w; every hash prefix with s, m or c.
  const l0 = lower.charCodeAt(0);
  for (const prefix of l0 === 104 || l0 === 102 || l0 === 119 ? URL_PREFIXES : NONE) {
    if (lower.startsWith(prefix) && text.length > prefix.length + 1) {
      let u = lower;
      while (u.endsWith("/")) u = u.slice(0, -1);
      return [token(text, "url", [`u:${u}`], [`u:${u}`], "#url")];
    }
  }
  if (text.indexOf("@") > 0 && isEmail(text)) return [token(text, "email", [`e:${lower}`], [`e:${lower}`], "#email")];
  if (isUuid(text) || isHash(text)) {
    const h = hashKey(lower);
    return [token(text, "hash", [h], [h], "#hash")];
  }
  for (const algo of l0 === 115 || l0 === 109 || l0 === 99 ? HASH_PREFIXES : NONE) {
    if (lower.startsWith(algo) && isHash(text.slice(algo.length))) {
      const h = hashKey(lower.slice(algo.length));
      return [token(text, "hash", [h], [h], "#hash")];
    }
  }
  const c0 = text.charCodeAt(0);
  if (isDigit(c0)) {
    if (isIpv4(text)) return [token(text, "ip", [`ip:${text}`], [`ip:${text}`], "#ip")];
    const iso = readIsoDate(text);
    if (iso && iso[1] === text.length) return [token(text, "date", [iso[0]], [iso[0]], "#date")];
    if (iso && (text.charCodeAt(10) === 84 || text.charCodeAt(10) === 116 || text.charCodeAt(10) === 95)) {
      const time = readTime(text, 11);
      if (time && 11 + time[1] === text.length) {
        return [token(text, "datetime", [iso[0], time[0]], [iso[0], time[0]], "#datetime")];
      }
    }
    const dated = readDottedOrSlashedDate(text);
    if (dated) return [token(text, "date", [dated], [dated], "#date")];
    const logged = readLogDate(text);
    if (logged) {
      const kind = logged.length === 2 ? "datetime" : "date";
      return [token(text, kind, logged, [...logged], `#${kind}`)];
    }
    // A month of a year: 2026-04.
    const month = text.length === 7 && text.charCodeAt(4) === 45 ? digitsAt(text, 5, 2) : -1;
    if (month >= 1 && month <= 12 && digitsAt(text, 0, 4) >= 1000) {
      const key = `d:${text.slice(0, 7)}`;
      return [token(text, "date", [key], [key], "#date")];
    }
    const dash = text.indexOf("-");
    if (dash > 0) {
      const a = readTime(text.slice(0, dash));
      const b = readTime(text.slice(dash + 1));
      if (a && b && a[1] === dash && b[1] === text.length - dash - 1) {
        return [
          token(text.slice(0, dash), "time", [a[0]], [a[0]], "#time"),
          token(text.slice(dash + 1), "time", [b[0]], [b[0]], "#time"),
        ];
      }
    }
    const time = readTime(text);
    if (time && time[1] === text.length) return [token(text, "time", [time[0]], [time[0]], "#time")];
    const epoch = readEpoch(text);
    if (epoch) return [token(text, "datetime", [epoch[0], epoch[1]], [epoch[0], epoch[1]], "#datetime")];
  }
  const version = readVersion(text);
  if (version) return [token(text, "version", [version], [version, `n:${version.slice(2)}`], "#version")];
  if (c0 === 35 && text.length > 1 && digitsAt(text, 1, text.length - 1) >= 0) {
    const read = readNumber(text, 1);
    if (read) return [token(text, "number", [`n:${read.value}`], [`n:${read.value}`], "#num")];
  }
  if (isUtcOffset(text)) return [token(text, "stop", [], [], "#zone")];
  const currency = c0 === 36 ? "usd" : c0 === 0x20ac ? "eur" : c0 === 0xa3 ? "gbp" : "";
  const numberAt = currency ? 1 : 0;
  const second = text.charCodeAt(numberAt + 1);
  if (
    isDigit(text.charCodeAt(numberAt)) ||
    ((text.charCodeAt(numberAt) === 45 || text.charCodeAt(numberAt) === 43) && isDigit(second))
  ) {
    const read = readNumber(text, numberAt);
    if (read) {
      const power = magnitude(text.slice(read.end), currency !== "");
      if (power > 0) return [numberToken(text, shiftDecimal(read.value, power), currency)];
      const suffix = asciiLower(text.slice(read.end));
      if (suffix === "") return [numberToken(text, read.value, currency)];
      if (ORDINAL_SUFFIXES.has(suffix)) return [numberToken(text, read.value, "")];
      const hour = !currency && (suffix === "am" || suffix === "pm") ? smallInt(read.value, 12) : -1;
      const time = hour > 0 ? readTime(`${hour}:00${suffix}`) : null;
      if (time) return [token(text, "time", [time[0]], [time[0]], "#time")];
      const unit = UNITS.get(suffix);
      if (unit && !currency) return [numberToken(text, read.value, unit)];
    }
  }
  const range = isDigit(c0) ? numberRange(text) : null;
  if (range) return range;
  if (c0 === 45 && text.length > 1) {
    let bare = lower;
    while (bare.startsWith("-")) bare = bare.slice(1);
    if (bare.length > 0 && isLetter(bare.charCodeAt(0)) && (shapeOf(bare) & PLAIN) !== 0) {
      return [token(text, "name", [`c:${bare}`], wordIndex(lower), "#flag")];
    }
  }
  if (isPath(text)) {
    let p = lower;
    while (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
    return [token(text, "path", [`p:${p}`], [`p:${p}`], "#path")];
  }
  const shape = shapeOf(text);
  const plain = (shape & PLAIN) !== 0;
  const letters = (shape & LETTERS) !== 0;
  const digit = (shape & DIGIT) !== 0;
  if (letters && (shape & (DIGIT | UNDERSCORE | INNER_DOT)) !== 0 && (plain || isOffsetLike(text))) {
    return [token(text, "name", [`c:${lower}`], wordIndex(lower), "#id")];
  }
  if (plain && letters && !digit) {
    // Hyphenated and apostrophised words stay whole; a lone hyphen or quote at an edge goes.
    let w = text;
    while (w.length > 0 && (w.endsWith("-") || w.endsWith("'"))) w = w.slice(0, -1);
    while (w.length > 0 && (w.startsWith("-") || w.startsWith("'"))) w = w.slice(1);
    if (w.length === text.length) {
      const spelled = numberWord(asciiLower(text));
      return [spelled === null ? wordToken(text, initial) : spelledNumber(text, spelled)];
    }
    return w.length > 0 ? classify(w, initial, false) : [];
  }
  if (plain && !letters && !digit) return [];
  return compound(text, initial);
}

/**
 * Two numbers joined by `..` or `-` (`304.68..304.87`, `2.5-3.5`): a range, each end a number of
 * its own (since floorline-facts/4). Before, a query plan's `cost=304.68..304.87` was read as its
 * digit runs, four numbers none of which a summary writing `304.68` states.
 */
function numberRange(text: string): Token[] | null {
  const a = readNumber(text, 0);
  if (!a) return null;
  const gap = text.startsWith("..", a.end) ? 2 : text.charCodeAt(a.end) === 45 ? 1 : 0;
  if (gap === 0 || !isDigit(text.charCodeAt(a.end + gap))) return null;
  const b = readNumber(text, a.end + gap);
  if (!b || b.end !== text.length) return null;
  return [numberToken(text.slice(0, a.end), a.value, ""), numberToken(text.slice(a.end + gap), b.value, "")];
}

export function asciiLettersOnly(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90))) return false;
  }
  return text.length > 0;
}

/** The value of a number written as a word ("fifteen", "twenty-one", "zwölf"), or null. */
function numberWord(lower: string): number | null {
  const value = NUMBER_WORDS.get(lower);
  if (value !== undefined) return value;
  const dash = lower.indexOf("-");
  if (dash < 0) return null;
  const tens = NUMBER_WORDS.get(lower.slice(0, dash));
  const unit = NUMBER_WORDS.get(lower.slice(dash + 1));
  return tens !== undefined &&
    unit !== undefined &&
    tens >= 20 &&
    tens <= 90 &&
    tens % 10 === 0 &&
    unit >= 1 &&
    unit <= 9
    ? tens + unit
    : null;
}

/**
 * A number written as a word states the number. "One" is also a pronoun: as a stop word it
 * states 1 in a content but is no fact of a source.
 */
function spelledNumber(text: string, value: number): Token {
  const lower = asciiLower(text);
  if (STOP_WORDS.has(lower)) return token(text, "stop", [], [`n:${value}`], lower);
  return numberToken(text, String(value), "");
}

const smallInt = (v: string | null, max: number) =>
  v !== null && v.length <= 4 && digitsAt(v, 0, v.length) >= 0 && Number(v) >= 1 && Number(v) <= max ? Number(v) : -1;
