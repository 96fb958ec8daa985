// Longer than most modules on purpose: the order of the classification tests is part of the
// method, and it reads as one list only in one place.
// Tokenisation and classification of text, the ground every format stands on. Written as
// plain character tests (no regular expressions, no locale, ASCII case folding only) so that
// a port to another language is line by line and gives the same tokens. docs/measurement.md
// states the rules in prose; the order of the tests below is part of them.
import { asciiLower, isAlnum, isBreak, isDigit, isHexLetter, isLetter, isLower, isUpper, stem } from "./chars";
import { dateKey, digitsAt, pad2, readDottedOrSlashedDate, readIsoDate, readNumber, readTime } from "./values";
import { ATTACHED_ONLY_UNITS, MONTHS, ORDINAL_SUFFIXES, STOP_WORDS, UNITS } from "./words";

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

interface WordShape {
  letters: boolean;
  digit: boolean;
  upperInside: boolean;
  allUpper: boolean;
  underscore: boolean;
  innerDot: boolean;
  /** Only letters, digits and - _ . ' : a single word-like run. */
  plain: boolean;
}

function shapeOf(s: string): WordShape {
  const shape: WordShape = {
    letters: false,
    digit: false,
    upperInside: false,
    allUpper: true,
    underscore: false,
    innerDot: false,
    plain: true,
  };
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isLetter(c)) {
      shape.letters = true;
      if (isLower(c)) shape.allUpper = false;
      if (i > 0 && isUpper(c) && isLower(s.charCodeAt(i - 1))) shape.upperInside = true;
    } else if (isDigit(c)) shape.digit = true;
    else if (c === 95) shape.underscore = true;
    else if (c === 46) {
      if (i > 0 && i < s.length - 1 && isAlnum(s.charCodeAt(i - 1)) && isAlnum(s.charCodeAt(i + 1)))
        shape.innerDot = true;
      else shape.plain = false;
    } else if (c !== 45 && c !== 39) shape.plain = false;
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

/** The keys any word-like token adds to an index, so a name, a keyword and a flag can meet. */
function wordIndex(lower: string): string[] {
  let bare = lower;
  while (bare.startsWith("-")) bare = bare.slice(1);
  return [`w:${stem(bare)}`, `c:${bare}`];
}

function numberToken(text: string, value: string, unit: string): Token {
  const plain = `n:${value}`;
  const need = unit ? `${plain}|${unit}` : plain;
  return token(text, "number", [need], unit ? [plain, need] : [plain], "#num");
}

function wordToken(text: string, initial: boolean): Token {
  const lower = asciiLower(text);
  if (STOP_WORDS.has(lower) || lower.length < 2) return token(text, "stop", [], [], lower);
  const shape = shapeOf(text);
  const c0 = text.charCodeAt(0);
  const capital = isUpper(c0);
  const index = wordIndex(lower);
  // A capital word is a name unless it merely opens a sentence; acronyms and inner capitals
  // (CSV, PostgreSQL) are names wherever they stand.
  if (capital && (!initial || (shape.allUpper && text.length >= 2) || shape.upperInside)) {
    return token(text, "name", [`c:${lower}`], index, lower);
  }
  if (lower.length < 3) return token(text, "stop", [], [], lower);
  return token(text, "keyword", [`w:${stem(lower)}`], index, lower);
}

/** Splits a token no rule recognises into its alphanumeric runs, each read as a word or number. */
function compound(text: string, initial: boolean): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && !isAlnum(text.charCodeAt(i))) i++;
    const start = i;
    while (i < text.length && isAlnum(text.charCodeAt(i))) i++;
    if (i > start) {
      const part = text.slice(start, i);
      out.push(...classify(part, initial && out.length === 0, false));
    }
  }
  return out;
}

/**
 * Classifies one token. Order matters and is part of the method: key=value, URL, e-mail,
 * UUID, hash, IPv4, ISO date(time), other dates, time range, time, version, #ref, number,
 * flag, path, identifier, word; anything else is split into its alphanumeric runs.
 */
export function classify(text: string, initial: boolean, allowPairs = true): Token[] {
  const lower = asciiLower(text);
  const eq = allowPairs ? text.indexOf("=") : -1;
  if (eq > 0 && eq < text.length - 1 && isLetter(text.charCodeAt(0))) {
    const key = text.slice(0, eq);
    const keyShape = shapeOf(key);
    if (keyShape.plain && !key.includes("'")) {
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
        t.index = [...t.index, ...wordIndex(keyLower)];
      }
      return inner;
    }
  }
  for (const prefix of URL_PREFIXES) {
    if (lower.startsWith(prefix) && text.length > prefix.length + 1) {
      let u = lower;
      while (u.endsWith("/")) u = u.slice(0, -1);
      return [token(text, "url", [`u:${u}`], [`u:${u}`], "#url")];
    }
  }
  if (text.indexOf("@") > 0 && isEmail(text)) return [token(text, "email", [`e:${lower}`], [`e:${lower}`], "#email")];
  if (isUuid(text) || isHash(text)) return [token(text, "hash", [`h:${lower}`], [`h:${lower}`], "#hash")];
  for (const algo of ["sha256:", "sha1:", "md5:", "sha512:", "ccr:"]) {
    if (lower.startsWith(algo) && isHash(text.slice(algo.length))) {
      const h = `h:${lower.slice(algo.length)}`;
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
  }
  const version = readVersion(text);
  if (version) return [token(text, "version", [version], [version, `n:${version.slice(2)}`], "#version")];
  if (c0 === 35 && text.length > 1 && digitsAt(text, 1, text.length - 1) >= 0) {
    const read = readNumber(text, 1);
    if (read) return [token(text, "number", [`n:${read.value}`], [`n:${read.value}`], "#num")];
  }
  const currency = c0 === 36 ? "usd" : c0 === 0x20ac ? "eur" : c0 === 0xa3 ? "gbp" : "";
  const numberAt = currency ? 1 : 0;
  const second = text.charCodeAt(numberAt + 1);
  if (
    isDigit(text.charCodeAt(numberAt)) ||
    ((text.charCodeAt(numberAt) === 45 || text.charCodeAt(numberAt) === 43) && isDigit(second))
  ) {
    const read = readNumber(text, numberAt);
    if (read) {
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
  if (c0 === 45 && text.length > 1) {
    let bare = lower;
    while (bare.startsWith("-")) bare = bare.slice(1);
    if (bare.length > 0 && isLetter(bare.charCodeAt(0)) && shapeOf(bare).plain) {
      return [token(text, "name", [`c:${bare}`], wordIndex(lower), "#flag")];
    }
  }
  if (isPath(text)) {
    let p = lower;
    while (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
    return [token(text, "path", [`p:${p}`], [`p:${p}`], "#path")];
  }
  const shape = shapeOf(text);
  if (shape.letters && (shape.digit || shape.underscore || shape.innerDot) && (shape.plain || isOffsetLike(text))) {
    return [token(text, "name", [`c:${lower}`], wordIndex(lower), "#id")];
  }
  if (shape.plain && shape.letters && !shape.digit) {
    // Hyphenated and apostrophised words stay whole; a lone hyphen or quote at an edge goes.
    let w = text;
    while (w.length > 0 && (w.endsWith("-") || w.endsWith("'"))) w = w.slice(0, -1);
    while (w.length > 0 && (w.startsWith("-") || w.startsWith("'"))) w = w.slice(1);
    if (w.length === text.length) return [wordToken(text, initial)];
    return w.length > 0 ? classify(w, initial, false) : [];
  }
  if (shape.plain && !shape.letters && !shape.digit) return [];
  return compound(text, initial);
}

// --- lines ---

// Most tokens of a text are words it uses again and again: their classification is kept
// (classify is pure, so the cache changes no answer, only the cost). Bounded, and emptied
// whole when full, which is as deterministic as the rest.
const CACHE_LIMIT = 65536;
const cache = new Map<string, Token[]>();

function classifyCached(text: string, initial: boolean): Token[] {
  const key = initial ? `\u0001${text}` : text;
  let known = cache.get(key);
  if (!known) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    known = classify(text, initial);
    cache.set(key, known);
  }
  // Each use gets its own token objects: a line's tokens carry where they stand (ends, open).
  return known.map((t) => ({ ...t }));
}

const TRAILING = new Set([46, 44, 58, 61, 39]); // . , : = '
const LEADING = new Set([44, 58, 61, 39]); // , : = '

/**
 * Splits one line into raw tokens and classifies them, then joins what spans tokens: a unit
 * word after a number ("4 GB"), am/pm after a time, and dates written with month names
 * ("May 2, 2026", "2 May 2026"). Commas break tokens except between digits; apostrophes
 * except between letters.
 */
export function tokenizeLine(line: string): Token[] {
  const raw: { text: string; ends: boolean; open: boolean }[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    while (i < n && isBreakAt(line, i)) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isBreakAt(line, i)) i++;
    let a = start;
    let b = i;
    let ends = i < n && (line.charCodeAt(i) === 33 || line.charCodeAt(i) === 63);
    while (b > a && TRAILING.has(line.charCodeAt(b - 1))) {
      if (line.charCodeAt(b - 1) === 46) ends = true;
      b--;
    }
    while (a < b && LEADING.has(line.charCodeAt(a))) a++;
    const open = b === i && (i >= n || line.charCodeAt(i) <= 32);
    if (b > a) raw.push({ text: line.slice(a, b), ends, open });
    else if (ends && raw.length > 0) {
      const last = raw[raw.length - 1];
      if (last) last.ends = true;
    }
  }
  const out: Token[] = [];
  let initial = true;
  for (const r of raw) {
    const classified = classifyCached(r.text, initial);
    const last = classified[classified.length - 1];
    if (last) {
      last.ends = r.ends;
      last.open = r.open;
    }
    out.push(...classified);
    initial = r.ends;
  }
  return joinAcross(out);
}

function isBreakAt(line: string, i: number): boolean {
  const c = line.charCodeAt(i);
  if (isBreak(c)) return true;
  if (c === 44)
    return !(i > 0 && i + 1 < line.length && isDigit(line.charCodeAt(i - 1)) && isDigit(line.charCodeAt(i + 1)));
  if (c === 39)
    return !(i > 0 && i + 1 < line.length && isLetter(line.charCodeAt(i - 1)) && isLetter(line.charCodeAt(i + 1)));
  return false;
}

const numberValue = (t: Token | undefined) =>
  t && t.kind === "number" && t.need.length === 1 && t.need[0]?.indexOf("|") === -1 ? (t.need[0] ?? "").slice(2) : null;

const smallInt = (v: string | null, max: number) =>
  v !== null && v.length <= 4 && digitsAt(v, 0, v.length) >= 0 && Number(v) >= 1 && Number(v) <= max ? Number(v) : -1;

function dateToken(parts: Token[], y: number, m: number, d: number): Token {
  const key = y > 0 ? dateKey(y, m, d) : `d:--${pad2(m)}-${pad2(d)}`;
  const t = token(parts.map((p) => p.text).join(" "), "date", [key], [key], "#date");
  t.ends = parts[parts.length - 1]?.ends ?? false;
  t.open = parts[parts.length - 1]?.open ?? false;
  return t;
}

function joinAcross(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    const next = tokens[i + 1];
    const month = t.kind !== "number" ? MONTHS.get(asciiLower(t.text)) : undefined;
    if (month !== undefined && !t.ends) {
      const day = smallInt(numberValue(next), 31);
      if (day > 0) {
        const year = next && !next.ends ? smallInt(numberValue(tokens[i + 2]), 2999) : -1;
        const parts = year >= 1000 ? [t, next as Token, tokens[i + 2] as Token] : [t, next as Token];
        out.push(dateToken(parts, year >= 1000 ? year : 0, month, day));
        i += parts.length - 1;
        continue;
      }
    }
    const day = smallInt(numberValue(t), 31);
    if (day > 0 && next && !t.ends) {
      const m = MONTHS.get(asciiLower(next.text));
      const year = smallInt(numberValue(tokens[i + 2]), 2999);
      if (m !== undefined && year >= 1000 && !next.ends) {
        out.push(dateToken([t, next, tokens[i + 2] as Token], year, m, day));
        i += 2;
        continue;
      }
    }
    if (next && t.open && (t.kind === "number" || t.kind === "time")) {
      const word = asciiLower(next.text);
      const unit = UNITS.get(word);
      const value = numberValue(t);
      if (t.kind === "number" && value !== null && unit && !ATTACHED_ONLY_UNITS.has(word)) {
        const joined = numberToken(`${t.text} ${next.text}`, value, unit);
        joined.ends = next.ends;
        joined.open = next.open;
        joined.key = t.key;
        joined.shape = t.shape;
        out.push(joined);
        i++;
        continue;
      }
      if (word === "am" || word === "pm" || word === "a.m" || word === "p.m") {
        const hour = t.kind === "number" ? smallInt(value, 12) : -1;
        const time = t.kind === "time" ? readTime(`${t.text}${word}`) : hour > 0 ? readTime(`${hour}:00${word}`) : null;
        if (time) {
          const joined = token(`${t.text} ${next.text}`, "time", [time[0]], [time[0]], "#time");
          joined.ends = next.ends;
          joined.open = next.open;
          out.push(joined);
          i++;
          continue;
        }
      }
    }
    out.push(t);
  }
  return out;
}
