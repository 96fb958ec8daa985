// Character classes and the case folding, byte counting and stemming built on them: code
// units, ASCII rules, nothing that depends on a locale or a Unicode table.

// --- character classes (code units; everything at or above 0x80 is a letter unless listed) ---

export const isDigit = (c: number) => c >= 48 && c <= 57;
export const isUpper = (c: number) => c >= 65 && c <= 90;
export const isLower = (c: number) => c >= 97 && c <= 122;
export const isHexLetter = (c: number) => (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

/** Non-ASCII characters that separate words: spaces, dashes, quotes, ellipsis, BOM. */
export function isWideSeparator(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0xab ||
    c === 0xbb ||
    (c >= 0x2000 && c <= 0x200b) ||
    (c >= 0x2010 && c <= 0x201f) ||
    c === 0x2026 ||
    c === 0x2039 ||
    c === 0x203a ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

export const isLetter = (c: number) => isUpper(c) || isLower(c) || (c >= 0x80 && !isWideSeparator(c));
export const isAlnum = (c: number) => isLetter(c) || isDigit(c);

/** ASCII lower case only: the same on every platform, whatever its locale. */
export function asciiLower(s: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isUpper(c)) {
      out += s.slice(from, i) + String.fromCharCode(c + 32);
      from = i + 1;
    }
  }
  return from === 0 ? s : out + s.slice(from);
}

/** Bytes of a string as UTF-8 (an unpaired surrogate counts as the 3 bytes of its code point). */
export function utf8Length(s: string): number {
  return utf8RangeLength(s, 0, s.length);
}

/** Bytes of `s[from, to)` as UTF-8, as utf8Length counts them. */
export function utf8RangeLength(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * A word's stem: lower case, a trailing "'s" or plural "s" dropped, then its first five
 * characters. Crude and language-blind on purpose: it only has to agree with itself, so that
 * "queued jobs" and "job queue" share stems.
 */
export function stem(lower: string): string {
  let w = lower;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) {
    w = w.slice(0, -1);
  }
  return w.length > 5 ? w.slice(0, 5) : w;
}
