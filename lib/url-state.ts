// The one way a dashboard page reads its URL. Each page family declares a zod schema in its
// route folder (`app/<family>/search-params.ts`) and parses with `parseSearchParams`, so every
// view is a shareable link. Pages never fail on a hand-edited or stale URL: schemas give each
// field a `.catch(...)` fallback, and a cursor that does not decode starts the list over.
import type { z } from "zod";

/** What Next.js hands a page as `searchParams`. */
export type RawSearchParams = Record<string, string | string[] | undefined>;

/** Next.js hands repeated keys over as arrays; like the API, the first value wins. Empty values count as absent. */
export function firstValues(raw: RawSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first !== "") out[key] = first;
  }
  return out;
}

/** A page's URL state through its family's schema. */
export function parseSearchParams<S extends z.ZodType>(schema: S, raw: RawSearchParams): z.output<S> {
  return schema.parse(firstValues(raw));
}

/**
 * A keyset cursor from the URL. One from an old or hand-edited link is `rejected` (the page
 * may say so) and the list starts over, instead of the page failing.
 */
export function safeCursor<K>(
  decode: (cursor: string | undefined) => K | undefined,
  cursor: string | undefined,
): { key?: K; rejected: boolean } {
  try {
    return { key: decode(cursor), rejected: false };
  } catch {
    return { rejected: true };
  }
}

/**
 * A dynamic segment of a page's URL as the id it encodes. Next.js hands pages the segment
 * still percent-encoded (route handlers get it decoded: vercel/next.js#64952), so
 * `/chains/a%20b` must be read as chain "a b". A segment that is not valid encoding is kept as is.
 */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
