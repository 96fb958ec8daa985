// JSON's strings and numbers, read the same way by both JSON readers of the measurement: the
// one-pass reader (json-read.ts) and the tree the schema check walks (schema.ts).
const isDigit = (c: number) => c >= 48 && c <= 57;

/** A JSON string read whole: its decoded text and the index just past its closing quote, or what is wrong and where. */
type JsonStringRead = { ok: true; text: string; end: number } | { ok: false; error: string; at: number };

/** Reads the JSON string whose characters start at `at` (just past its opening quote), decoding its escapes. */
export function readJsonString(s: string, at: number): JsonStringRead {
  const n = s.length;
  let out = "";
  let from = at;
  let i = at;
  for (;;) {
    if (i >= n) return { ok: false, error: "unterminated string", at: i };
    const c = s.charCodeAt(i);
    if (c === 34) return { ok: true, text: out + s.slice(from, i), end: i + 1 };
    if (c < 32) return { ok: false, error: "control character in string", at: i };
    if (c !== 92) {
      i++;
      continue;
    }
    out += s.slice(from, i);
    const unicode = s.charCodeAt(i + 1) === 117;
    const decoded = jsonEscape(s, i + 1);
    if (decoded === null) return { ok: false, error: unicode ? "bad \\u escape" : "bad escape", at: i + 2 };
    out += decoded;
    i += unicode ? 6 : 2;
    from = i;
  }
}

/** What is wrong with a number, by the code jsonNumberEnd answers (-1, -2, -3). */
export const JSON_NUMBER_ERRORS = ["bad number", "bad fraction", "bad exponent"] as const;

/**
 * The index just past the JSON number that starts at `at` (a minus sign or a digit), or a
 * negative code: -1 no digits where the integer part must be, -2 none after the point, -3 none
 * in the exponent (JSON_NUMBER_ERRORS[-code - 1] says which).
 */
export function jsonNumberEnd(s: string, at: number): number {
  const n = s.length;
  let i = at;
  if (s.charCodeAt(i) === 45) i++;
  if (s.charCodeAt(i) === 48) i++;
  else if (isDigit(s.charCodeAt(i))) while (i < n && isDigit(s.charCodeAt(i))) i++;
  else return -1;
  if (s.charCodeAt(i) === 46) {
    i++;
    if (!isDigit(s.charCodeAt(i))) return -2;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  }
  if (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69) {
    i++;
    if (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45) i++;
    if (!isDigit(s.charCodeAt(i))) return -3;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  }
  return i;
}

/**
 * The character the escape at `s[at]` (the letter just after a backslash) stands for, or null
 * when JSON has no such escape; `\u` takes the four hex digits after it.
 */
function jsonEscape(s: string, at: number): string | null {
  const e = s.charCodeAt(at);
  if (e === 117) {
    let code = 0;
    for (let k = 1; k <= 4; k++) {
      const h = s.charCodeAt(at + k);
      const d = isDigit(h) ? h - 48 : h >= 97 && h <= 102 ? h - 87 : h >= 65 && h <= 70 ? h - 55 : -1;
      if (d < 0) return null;
      code = code * 16 + d;
    }
    return String.fromCharCode(code);
  }
  switch (e) {
    case 34:
      return '"';
    case 92:
      return "\\";
    case 47:
      return "/";
    case 98:
      return "\b";
    case 102:
      return "\f";
    case 110:
      return "\n";
    case 114:
      return "\r";
    case 116:
      return "\t";
    default:
      return null;
  }
}
