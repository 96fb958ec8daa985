// Readers of the values that have several spellings: numbers, dates and times, each to one
// canonical key, so that "10,000" and "10000", "May 2, 2026" and "2026-05-02" agree.
import { asciiLower, isDigit, isLetter } from "./chars";
import { MONTHS } from "./words";

// --- numbers, dates, times ---

interface NumberRead {
  value: string;
  end: number;
}

/** Reads digits (with , or _ thousands groups), a fraction and an exponent at `i`; canonical value. */
export function readNumber(s: string, i: number): NumberRead | null {
  let j = i;
  let negative = false;
  if (s.charCodeAt(j) === 45 || s.charCodeAt(j) === 43) {
    negative = s.charCodeAt(j) === 45;
    j++;
  }
  const intStart = j;
  while (j < s.length && isDigit(s.charCodeAt(j))) j++;
  if (j === intStart) return null;
  let int = s.slice(intStart, j);
  // Thousands groups only after a lead of 1-3 digits, and only in groups of exactly three.
  if (int.length <= 3) {
    while (
      j + 3 < s.length + 0 &&
      (s.charCodeAt(j) === 44 || s.charCodeAt(j) === 95) &&
      isDigit(s.charCodeAt(j + 1)) &&
      isDigit(s.charCodeAt(j + 2)) &&
      isDigit(s.charCodeAt(j + 3)) &&
      !(j + 4 < s.length && isDigit(s.charCodeAt(j + 4)))
    ) {
      int += s.slice(j + 1, j + 4);
      j += 4;
    }
  }
  let frac = "";
  if (s.charCodeAt(j) === 46 && j + 1 < s.length && isDigit(s.charCodeAt(j + 1))) {
    const fracStart = j + 1;
    j = fracStart;
    while (j < s.length && isDigit(s.charCodeAt(j))) j++;
    frac = s.slice(fracStart, j);
  }
  let exp = "";
  let power = 0;
  if ((s.charCodeAt(j) === 101 || s.charCodeAt(j) === 69) && j + 1 < s.length) {
    let k = j + 1;
    let sign = "";
    if (s.charCodeAt(k) === 45 || s.charCodeAt(k) === 43) {
      sign = s.charCodeAt(k) === 45 ? "-" : "";
      k++;
    }
    const expStart = k;
    while (k < s.length && isDigit(s.charCodeAt(k))) k++;
    if (k > expStart) {
      let digits = s.slice(expStart, k);
      while (digits.length > 1 && digits.startsWith("0")) digits = digits.slice(1);
      // Scientific notation is the same number written out ("1.2e6" is 1200000), within reason.
      if (digits.length <= 2 && Number(digits) <= MAX_SHIFT) power = sign ? -Number(digits) : Number(digits);
      else exp = `e${sign}${digits}`;
      j = k;
    }
  }
  while (int.length > 1 && int.startsWith("0")) int = int.slice(1);
  while (frac.endsWith("0")) frac = frac.slice(0, -1);
  let value = frac ? `${int}.${frac}` : int;
  if (power !== 0) value = shiftDecimal(value, power);
  value += exp;
  if (negative && value !== "0") value = `-${value}`;
  return { value, end: j };
}

/** The largest power of ten a number is written out for; beyond it, scientific notation stays. */
const MAX_SHIFT = 21;

/**
 * A canonical number (digits, an optional fraction, an optional leading minus) times 10^power,
 * canonical again: decimal digits moved, never floating point, so every platform agrees.
 */
export function shiftDecimal(value: string, power: number): string {
  const negative = value.startsWith("-");
  const v = negative ? value.slice(1) : value;
  const dot = v.indexOf(".");
  const int = dot < 0 ? v : v.slice(0, dot);
  const frac = dot < 0 ? "" : v.slice(dot + 1);
  const digits = int + frac;
  const point = int.length + power;
  let whole: string;
  let part: string;
  if (point <= 0) {
    whole = "0";
    part = "0".repeat(-point) + digits;
  } else if (point >= digits.length) {
    whole = digits + "0".repeat(point - digits.length);
    part = "";
  } else {
    whole = digits.slice(0, point);
    part = digits.slice(point);
  }
  while (whole.length > 1 && whole.startsWith("0")) whole = whole.slice(1);
  while (part.endsWith("0")) part = part.slice(0, -1);
  const out = part ? `${whole}.${part}` : whole;
  return negative && out !== "0" ? `-${out}` : out;
}

export const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

export function digitsAt(s: string, i: number, n: number): number {
  if (i + n > s.length) return -1;
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}

function validDate(y: number, m: number, d: number): boolean {
  return y >= 1000 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

const dateKey = (y: number, m: number, d: number) => `d:${y}-${pad2(m)}-${pad2(d)}`;

/** YYYY-MM-DD or YYYY/MM/DD at the start of `s`: [key, length] or null. */
export function readIsoDate(s: string): [string, number] | null {
  const y = digitsAt(s, 0, 4);
  const sep = s.charCodeAt(4);
  if (y < 0 || (sep !== 45 && sep !== 47) || s.charCodeAt(7) !== sep) return null;
  const m = digitsAt(s, 5, 2);
  const d = digitsAt(s, 8, 2);
  if (!validDate(y, m, d) || (s.length > 10 && isDigit(s.charCodeAt(10)))) return null;
  return [dateKey(y, m, d), 10];
}

/** DD.MM.YYYY, or MM/DD/YYYY (DD/MM/YYYY when the first part cannot be a month): the whole token. */
export function readDottedOrSlashedDate(s: string): string | null {
  const sep = s.indexOf(".") > 0 ? 46 : 47;
  // Three parts are two separators: most digit-led tokens (times, versions) are out before the split.
  let seps = 0;
  for (let i = 0; i < s.length && seps <= 2; i++) if (s.charCodeAt(i) === sep) seps++;
  if (seps !== 2) return null;
  const parts = s.split(String.fromCharCode(sep));
  if (parts.length !== 3) return null;
  const [a, b, c] = parts.map((p) =>
    p.length >= 1 && p.length <= 4 && digitsAt(p, 0, p.length) >= 0 ? Number(p) : -1,
  );
  if (a === undefined || b === undefined || c === undefined || (parts[2] ?? "").length !== 4) return null;
  let day = sep === 46 ? a : b;
  let month = sep === 46 ? b : a;
  if (sep === 47 && a > 12) {
    day = a;
    month = b;
  }
  return validDate(c, month, day) ? dateKey(c, month, day) : null;
}

/**
 * A date as web servers log it (the Common Log Format's `10/Oct/2000`, Python's http.server
 * `05/Dec/2026`), with `:13:55:36` after it its time (since floorline-facts/4): the whole
 * token's [date key] or [date key, time key]; null otherwise.
 */
export function readLogDate(s: string): string[] | null {
  const first = s.indexOf("/");
  if (first < 1 || first > 2) return null;
  const day = digitsAt(s, 0, first);
  let m = first + 1;
  while (m < s.length && isLetter(s.charCodeAt(m))) m++;
  const month = MONTHS.get(asciiLower(s.slice(first + 1, m))) ?? 0;
  if (month === 0 || s.charCodeAt(m) !== 47) return null;
  const year = digitsAt(s, m + 1, 4);
  if (!validDate(year, month, day) || (m + 5 < s.length && isDigit(s.charCodeAt(m + 5)))) return null;
  const date = dateKey(year, month, day);
  if (m + 5 === s.length) return [date];
  if (s.charCodeAt(m + 5) !== 58) return null;
  const time = readTime(s, m + 6);
  return time && m + 6 + time[1] === s.length ? [date, time[0]] : null;
}

/**
 * A UTC offset written apart from its time (`09:28:11 +0000`, `[…:13:55:36 -0700]`, `+05:30`):
 * a sign, hours to 14 and minutes of 00, 15, 30 or 45, four digits only with a leading zero
 * (`+1000` may be a number; `+10:00` is not). A time is read without its zone (readTime drops an
 * attached one), so the offset is notation, not a number (since floorline-facts/4).
 */
export function isUtcOffset(s: string): boolean {
  const sign = s.charCodeAt(0);
  if (sign !== 43 && sign !== 45) return false;
  const colon = s.length === 6 && s.charCodeAt(3) === 58;
  if (s.length !== 5 && !colon) return false;
  if (!colon && s.charCodeAt(1) !== 48) return false;
  const hours = digitsAt(s, 1, 2);
  const minutes = digitsAt(s, colon ? 4 : 3, 2);
  return hours >= 0 && hours <= 14 && (minutes === 0 || minutes === 15 || minutes === 30 || minutes === 45);
}

/** Unix times read as moments: from 2001-09-09 (10^9 s, 10^12 ms) to the start of 2100. */
const EPOCH_FROM_S = 1e9;
const EPOCH_TO_S = 4_102_444_800;

/**
 * A Unix time as a structured logger writes it (since floorline-facts/4): 13 digits of
 * milliseconds (pino, `Date.now()`) or 10 digits of seconds with a fraction (zap, Python's
 * `time.time()`), the whole token. Its [date key, time key] in UTC, the keys `2024-12-05T09:20:07Z`
 * has; null otherwise. Ten digits alone are too often something else (a phone number, an id).
 */
export function readEpoch(s: string): [string, string] | null {
  let seconds: number;
  if (s.length === 13) {
    if (digitsAt(s, 0, 13) < 0) return null;
    seconds = Math.floor(Number(s) / 1000);
  } else if (s.length >= 12 && s.length <= 20 && s.charCodeAt(10) === 46) {
    if (digitsAt(s, 0, 10) < 0 || digitsAt(s, 11, s.length - 11) < 0) return null;
    seconds = Number(s.slice(0, 10));
  } else return null;
  if (seconds < EPOCH_FROM_S || seconds >= EPOCH_TO_S) return null;
  const moment = new Date(seconds * 1000);
  const time = readTime(moment.toISOString().slice(11, 19));
  if (time === null) return null;
  return [dateKey(moment.getUTCFullYear(), moment.getUTCMonth() + 1, moment.getUTCDate()), time[0]];
}

/**
 * H:MM, HH:MM:SS, HH:MM:SS.fff with an optional Z, UTC offset or am/pm, from the start of
 * `s`: [key, length]. Seconds of 00 are dropped, so "10:00" and "10:00:00" agree.
 */
export function readTime(s: string, from = 0): [string, number] | null {
  let i = from;
  let h = 0;
  const start = i;
  while (i < s.length && isDigit(s.charCodeAt(i)) && i - start < 2) h = h * 10 + s.charCodeAt(i++) - 48;
  if (i === start || s.charCodeAt(i) !== 58) return null;
  const min = digitsAt(s, i + 1, 2);
  if (min < 0 || min > 59 || h > 24) return null;
  i += 3;
  let sec = "";
  if (s.charCodeAt(i) === 58) {
    const sv = digitsAt(s, i + 1, 2);
    if (sv < 0 || sv > 60) return null;
    sec = pad2(sv);
    i += 3;
    // A fraction of a second is read and not kept (since floorline-facts/4): `10:33:34.825614`
    // is the moment `10:33:34` names, and a log's lines within one second are one time.
    if (s.charCodeAt(i) === 46 || s.charCodeAt(i) === 44) {
      let j = i + 1;
      while (j < s.length && isDigit(s.charCodeAt(j))) j++;
      i = j;
    }
  }
  const rest = asciiLower(s.slice(i));
  if (rest === "am" || rest === "a.m" || rest === "pm" || rest === "p.m") {
    if (h > 12) return null;
    if (rest.startsWith("p") && h < 12) h += 12;
    if (rest.startsWith("a") && h === 12) h = 0;
    i = s.length;
  } else if (s.charCodeAt(i) === 90 || s.charCodeAt(i) === 122) i++;
  else if ((s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45) && digitsAt(s, i + 1, 2) >= 0) {
    i += 3;
    if (s.charCodeAt(i) === 58) i++;
    if (digitsAt(s, i, 2) >= 0) i += 2;
  }
  const key = `t:${pad2(h)}:${pad2(min)}${sec && sec !== "00" ? `:${sec}` : ""}`;
  return [key, i - from];
}
