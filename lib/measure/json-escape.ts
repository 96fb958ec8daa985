// JSON's string escapes, read the same way by both JSON readers of the measurement: the
// one-pass reader (json-read.ts) and the tree the schema check walks (schema.ts).
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * The character the escape at `s[at]` (the letter just after a backslash) stands for, or null
 * when JSON has no such escape; `\u` takes the four hex digits after it.
 */
export function jsonEscape(s: string, at: number): string | null {
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
