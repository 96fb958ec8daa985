// Base64 content: decoded strictly (the standard alphabet, whole quanta, padding only at the
// end, no whitespace: what a strict consumer accepts), then the bytes must be UTF-8 text.

function sextet(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  if (c === 43) return 62;
  if (c === 47) return 63;
  return -1;
}

/** The bytes of strict base64, or null when it is not. */
function decodeBase64(s: string): Uint8Array | null {
  if (s.length % 4 !== 0) return null;
  let pad = 0;
  if (s.endsWith("==")) pad = 2;
  else if (s.endsWith("=")) pad = 1;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < s.length; i += 4) {
    const last = i + 4 === s.length;
    const a = sextet(s.charCodeAt(i));
    const b = sextet(s.charCodeAt(i + 1));
    const c = last && pad === 2 ? 0 : sextet(s.charCodeAt(i + 2));
    const d = last && pad >= 1 ? 0 : sextet(s.charCodeAt(i + 3));
    if (a < 0 || b < 0 || c < 0 || d < 0) return null;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

/**
 * Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF), or null. A BOM
 * stays in the text. Written out rather than left to a platform decoder so that every
 * implementation refuses exactly the same bytes.
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  const parts: string[] = [];
  let units: number[] = [];
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b0 = bytes[i] as number;
    let cp: number;
    if (b0 < 0x80) {
      cp = b0;
      i += 1;
    } else {
      let need: number;
      let min: number;
      if (b0 >= 0xc2 && b0 <= 0xdf) {
        need = 1;
        min = 0x80;
        cp = b0 & 0x1f;
      } else if (b0 >= 0xe0 && b0 <= 0xef) {
        need = 2;
        min = 0x800;
        cp = b0 & 0x0f;
      } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        need = 3;
        min = 0x10000;
        cp = b0 & 0x07;
      } else return null;
      if (i + need > n - 1) return null;
      for (let k = 1; k <= need; k++) {
        const b = bytes[i + k];
        if (b === undefined || (b & 0xc0) !== 0x80) return null;
        cp = (cp << 6) | (b & 0x3f);
      }
      if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
      i += need + 1;
    }
    if (cp >= 0x10000) {
      const v = cp - 0x10000;
      units.push(0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
    } else units.push(cp);
    if (units.length >= 8192) {
      parts.push(String.fromCharCode(...units));
      units = [];
    }
  }
  parts.push(String.fromCharCode(...units));
  return parts.join("");
}

/**
 * Whether content of format `any` may be base64: one run of at least 16 characters of the
 * alphabet, a multiple of 4 long, not hex in either case (a digest is not base64).
 */
export function looksLikeBase64(s: string): boolean {
  if (s.length < 16 || s.length % 4 !== 0) return false;
  let hexOnly = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (sextet(c) < 0 && !(c === 61 && i >= s.length - 2)) return false;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) hexOnly = false;
  }
  return !hexOnly;
}

/**
 * Base64 as `base64(1)` and MIME (RFC 2045) write it: lines of one width, a multiple of 4, the
 * last one no longer, each ended by a line break (LF or CRLF; the last break may be missing).
 * Such a text is the one run its lines make; any other text is returned as it is. (Since
 * floorline-facts/4: before it, a wrapped run was not base64, and `base64(1)`'s own output
 * measured 0.)
 */
export function unwrapBase64(s: string): string {
  if (s.indexOf("\n") < 0) return s;
  const lines = s.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let width = 0;
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n] as string;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    lines[n] = line;
    if (n === 0) width = line.length;
    const last = n === lines.length - 1;
    if (line.length === 0 || (last ? line.length > width : line.length !== width)) return s;
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (sextet(c) < 0 && c !== 61) return s;
    }
  }
  if (lines.length === 0 || (lines.length > 1 && width % 4 !== 0)) return s;
  return lines.join("");
}

/** Layers of base64 read through: base64 of base64 of text is that text. */
const MAX_LAYERS = 3;

/**
 * The text strict base64 decodes to, or null when it is not base64 of UTF-8. Text that is
 * itself base64 of printable text is decoded again, so that encoding a base64 source once more
 * changes nothing.
 */
export function base64Text(s: string): string | null {
  const bytes = decodeBase64(s);
  let text = bytes ? decodeUtf8(bytes) : null;
  for (let layer = 1; text !== null && layer < MAX_LAYERS && looksLikeBase64(text); layer++) {
    const inner = decodeBase64(text);
    const decoded = inner ? decodeUtf8(inner) : null;
    if (decoded === null || !isPrintable(decoded)) break;
    text = decoded;
  }
  return text;
}

/** Text a reader can use: no control characters but tab, line feed and carriage return. */
export function isPrintable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 127) return false;
  }
  return true;
}
