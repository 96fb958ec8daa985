// CCR markers: where a compressed content says its original can be fetched back. Headroom's
// `[N items compressed to M. Retrieve more: hash=H]` and the `<<ccr:H>>` form, H being 12 to
// 64 hex characters (a prefix of the original's SHA-256, or the whole of it).

const MIN_HEX = 12;
const MAX_HEX = 64;
/** A hash as `findMarkers` answers it (lower case): what a cached original is looked up by. */
export const MARKER_HASH = new RegExp(`^[0-9a-f]{${MIN_HEX},${MAX_HEX}}$`);

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

function hexRun(s: string, from: number): string | null {
  let i = from;
  while (i < s.length && i - from < MAX_HEX + 1 && isHex(s.charCodeAt(i))) i++;
  const length = i - from;
  if (length < MIN_HEX || length > MAX_HEX) return null;
  if (i < s.length && isHex(s.charCodeAt(i))) return null;
  let out = "";
  for (let k = from; k < i; k++) {
    const c = s.charCodeAt(k);
    out += String.fromCharCode(c >= 65 && c <= 70 ? c + 32 : c);
  }
  return out;
}

/** The distinct hashes the content's markers name, in order of first appearance, at most `limit`. */
export function findMarkers(s: string, limit: number): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const take = (hash: string | null) => {
    if (hash && !seen.has(hash) && found.length < limit) {
      seen.add(hash);
      found.push(hash);
    }
  };
  for (let at = s.indexOf("hash="); at >= 0 && found.length < limit; at = s.indexOf("hash=", at + 5)) {
    take(hexRun(s, at + 5));
  }
  for (let at = s.indexOf("<<ccr:"); at >= 0 && found.length < limit; at = s.indexOf("<<ccr:", at + 6)) {
    const hash = hexRun(s, at + 6);
    if (hash && s.startsWith(">>", at + 6 + hash.length)) take(hash);
  }
  return found;
}
