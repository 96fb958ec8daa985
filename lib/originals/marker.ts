// Store keys and compression markers: what an agent (or the SDK) needs to make a marker and
// read one back, apart from the store's configuration so that clients import no server code.
export const FULL_HASH_LENGTH = 64;
/** Compression markers carry 12- and 24-character keys; shorter ones collide too easily. */
export const MIN_PREFIX_LENGTH = 12;
export const MARKER_KEY_LENGTH = 24;
export type HashKey = { ok: true; key: string; full: boolean } | { ok: false; message: string };

/**
 * Reads a store key the way an agent is likely to send it: copied from a marker, perhaps as
 * `hash=…` or in upper case. Anything that is not 12 to 64 hex characters is refused.
 */
export function parseHashKey(input: string): HashKey {
  const key = input
    .trim()
    .replace(/^hash=/i, "")
    .toLowerCase();
  if (!/^[0-9a-f]*$/.test(key)) {
    return {
      ok: false,
      message: "must be hexadecimal: the sha256 of the original, or a prefix of it from a compression marker",
    };
  }
  if (key.length < MIN_PREFIX_LENGTH || key.length > FULL_HASH_LENGTH) {
    return {
      ok: false,
      message: `must be ${MIN_PREFIX_LENGTH} to ${FULL_HASH_LENGTH} hex characters (a full sha256 or a prefix of at least ${MIN_PREFIX_LENGTH})`,
    };
  }
  return { ok: true, key, full: key.length === FULL_HASH_LENGTH };
}

/** A client-supplied key must name this original: its digest or a long enough prefix of it. */
export function checkClientHash(clientHash: string, digest: string): string | null {
  const parsed = parseHashKey(clientHash);
  if (!parsed.ok) return parsed.message;
  if (!digest.startsWith(parsed.key)) {
    return `is not the sha256 of the original as UTF-8 (which is ${digest}) nor a prefix of it`;
  }
  return null;
}

/** The key a marker carries: the client's own when it sent one, else a 24-character prefix. */
export function markerKey(digest: string, clientHash?: string | null): string {
  const parsed = clientHash ? parseHashKey(clientHash) : null;
  return parsed?.ok ? parsed.key : digest.slice(0, MARKER_KEY_LENGTH);
}

/** The text appended to compressed output so the model knows more exists and how to get it. */
export function formatMarker(key: string, originalItems?: number | null, compressedItems?: number | null): string {
  if (originalItems != null && compressedItems != null) {
    return `[${originalItems} items compressed to ${compressedItems}. Retrieve more: hash=${key}]`;
  }
  return `[Content compressed. Retrieve more: hash=${key}]`;
}
