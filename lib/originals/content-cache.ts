// Recently retrieved originals, in memory. An original is content-addressed (its hash is the
// SHA-256 of its text), so the text under a hash never changes and may be served from here
// instead of being read from the database and escaped into JSON again on every retrieval.
// The database still decides each retrieval (live or gone, recency, the counts): this only
// spares moving and re-encoding the bytes. Process-wide (route bundles each load this module)
// and bounded; two instances can hold different entries but never different texts.
import { Buffer } from "node:buffer";
import { MiB } from "../http/body";
import { RETRIEVAL_HEADERS } from "./rules";

/** Below this an original costs little to read and encode: the room is kept for large ones. */
export const CACHED_MIN_BYTES = 64 * 1024;
const BUDGET_BYTES = 16 * MiB;
const ENTRY_MAX_BYTES = 8 * MiB;

interface Entry {
  original: string;
  /** `JSON.stringify(original)` as UTF-8, made at the first JSON answer. */
  json: Buffer | null;
  /** The original as UTF-8, made at the first plain-text answer. */
  utf8: Buffer | null;
  /** What the entry holds: the text at two bytes a character (V8's worst case), plus its encodings. */
  bytes: number;
}

interface CacheState {
  entries: Map<string, Entry>;
  bytes: number;
}
const globalForCache = globalThis as unknown as { floorlineContentCache?: CacheState };
globalForCache.floorlineContentCache ??= { entries: new Map(), bytes: 0 };
const cache = globalForCache.floorlineContentCache;

function evictOver(budget: number): void {
  for (const [hash, entry] of cache.entries) {
    if (cache.bytes <= budget) return;
    cache.entries.delete(hash);
    cache.bytes -= entry.bytes;
  }
}

/**
 * The cached original a key names, when exactly one cached hash starts with it (a full hash
 * names itself). The database still resolves the key; a different answer there wins.
 */
export function cachedOriginalFor(key: string): { hash: string; original: string } | null {
  const exact = cache.entries.get(key);
  if (exact) return { hash: key, original: exact.original };
  let found: { hash: string; original: string } | null = null;
  for (const [hash, entry] of cache.entries) {
    if (!hash.startsWith(key)) continue;
    if (found) return null;
    found = { hash, original: entry.original };
  }
  return found;
}

/** Keeps a retrieved original (most recently used last); small and huge ones are not kept. */
export function rememberOriginal(hash: string, original: string): void {
  const bytes = original.length * 2;
  if (original.length < CACHED_MIN_BYTES / 2 || bytes > ENTRY_MAX_BYTES) return;
  const held = cache.entries.get(hash);
  if (held) {
    cache.entries.delete(hash);
    cache.entries.set(hash, held);
    return;
  }
  cache.entries.set(hash, { original, json: null, utf8: null, bytes });
  cache.bytes += bytes;
  evictOver(BUDGET_BYTES);
}

/** `encode(original)` (as UTF-8), kept with the cached original when there is one. */
function encoded(hash: string, original: string, kind: "json" | "utf8", encode: (text: string) => string): Buffer {
  const entry = cache.entries.get(hash);
  if (!entry || entry.original !== original) return Buffer.from(encode(original));
  const held = entry[kind];
  if (held) return held;
  const made = Buffer.from(encode(original));
  entry[kind] = made;
  entry.bytes += made.byteLength;
  cache.bytes += made.byteLength;
  evictOver(BUDGET_BYTES);
  return made;
}

const asJson = (text: string) => JSON.stringify(text);
const asIs = (text: string) => text;

const view = (bytes: Buffer): Uint8Array<ArrayBuffer> =>
  new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);

/** The original as UTF-8 bytes, for a plain-text retrieval. */
export function retrievalText(found: { hash: string; original: string }): Uint8Array<ArrayBuffer> {
  return view(encoded(found.hash, found.original, "utf8", asIs));
}

/**
 * The bytes of `JSON.stringify(found)` for a retrieval, `original` being its last key: the
 * summary is serialised as usual and the original's JSON taken from the cache.
 */
function retrievalJson(found: { hash: string; original: string }): Buffer {
  const { original, ...summary } = found;
  const head = JSON.stringify(summary);
  return Buffer.concat([
    Buffer.from(`${head.length > 2 ? `${head.slice(0, -1)},` : "{"}"original":`),
    encoded(found.hash, original, "json", asJson),
    Buffer.from("}"),
  ]);
}

/** The 200 answer to a JSON retrieval: what `Response.json(found)` sends, with the retrieval headers. */
export function retrievalResponse(found: { hash: string; original: string }): Response {
  return new Response(view(retrievalJson(found)), {
    headers: { ...RETRIEVAL_HEADERS, "content-type": "application/json" },
  });
}

/** Empties the cache (tests). */
export function forgetCachedOriginals(): void {
  cache.entries.clear();
  cache.bytes = 0;
}
