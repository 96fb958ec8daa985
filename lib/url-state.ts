// The one way a dashboard page reads its URL. Each page family declares a zod schema in its
// route folder (`app/<family>/search-params.ts`) and parses with `parseSearchParams`, so every
// view is a shareable link. Pages never fail on a hand-edited or stale URL: schemas give each
// field a `.catch(...)` fallback, and a cursor that does not decode starts the list over.
import { type z, ZodCatch, ZodDefault, ZodOptional, ZodPipe } from "zod";
import { isStorableText, STORABLE_MESSAGE } from "@/lib/schemas/common";

/** What Next.js hands a page as `searchParams`. */
export type RawSearchParams = Record<string, string | string[] | undefined>;

/**
 * Next.js hands repeated keys over as arrays; like the API, the first value wins, except for
 * `repeatable` keys, whose values are joined with commas. Empty values count as absent.
 *
 * Only strings are taken: `?__proto__=a&__proto__=b&sort=x` gives Next.js's object an array
 * as its prototype, and the `sort` it then collects starts with `Array.prototype.sort`.
 * Values no stored text can match (a NUL) are left out too, and named in `unusable`: passed
 * on, they would fail the page's query in the database.
 */
function collectValues(
  raw: RawSearchParams,
  repeatable: readonly string[],
): { values: Record<string, string>; unusable: IgnoredParam[] } {
  const values: Record<string, string> = {};
  const unusable: IgnoredParam[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const strings = (Array.isArray(value) ? value : [value]).filter(
      (v): v is string => typeof v === "string" && v !== "",
    );
    const first = repeatable.includes(key) ? strings.join(",") : strings[0];
    if (first === undefined || first === "") continue;
    if (isStorableText(first)) values[key] = first;
    else unusable.push({ key, value: first.replaceAll("\u0000", "\u2400"), message: STORABLE_MESSAGE });
  }
  return { values, unusable };
}

/** The usable value of each key (see `collectValues`). */
export function firstValues(raw: RawSearchParams, repeatable: readonly string[] = []): Record<string, string> {
  return collectValues(raw, repeatable).values;
}

/** A page's URL state through its family's schema. */
export function parseSearchParams<S extends z.ZodType>(
  schema: S,
  raw: RawSearchParams,
  repeatable: readonly string[] = [],
): z.output<S> {
  return schema.parse(firstValues(raw, repeatable));
}

/** A URL value a page could not use and fell back from: the page says so instead of dropping it silently. */
export interface IgnoredParam {
  key: string;
  value: string;
  message: string;
}

/**
 * Like `parseSearchParams`, and also names every value the schema's `.catch` fallbacks
 * replaced (an unknown status, a page size the list does not offer): each field with a
 * fallback is checked again without it. Fields in `quiet` (cursors, whose rejection the page
 * reports its own way) are left out.
 */
export function parseSearchParamsWithNotices<S extends z.ZodObject>(
  schema: S,
  raw: RawSearchParams,
  options: { repeatable?: readonly string[]; quiet?: readonly string[] } = {},
): { params: z.output<S>; ignored: IgnoredParam[] } {
  const { values, unusable } = collectValues(raw, options.repeatable ?? []);
  const ignored: IgnoredParam[] = unusable.filter((param) => !options.quiet?.includes(param.key));
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const value = values[key];
    if (value === undefined || options.quiet?.includes(key)) continue;
    const parsed = withoutFallback(field).safeParse(value);
    if (!parsed.success) {
      ignored.push({ key, value, message: parsed.error.issues[0]?.message ?? "not a valid value" });
    }
  }
  return { params: schema.parse(values), ignored };
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

/** A field's schema with its `.catch` fallbacks taken out (through defaults, optionals and transforms). */
function withoutFallback(field: z.ZodType): z.ZodType {
  if (field instanceof ZodCatch) return withoutFallback(field.unwrap() as z.ZodType);
  if (field instanceof ZodDefault || field instanceof ZodOptional) return withoutFallback(field.unwrap() as z.ZodType);
  // A transform after a fallback (`text.catch(...).transform(...)`): the raw value is the input side's.
  if (field instanceof ZodPipe && hasFallback(field.in as z.ZodType)) return withoutFallback(field.in as z.ZodType);
  return field;
}

function hasFallback(field: z.ZodType): boolean {
  if (field instanceof ZodCatch) return true;
  if (field instanceof ZodDefault || field instanceof ZodOptional) return hasFallback(field.unwrap() as z.ZodType);
  if (field instanceof ZodPipe) return hasFallback(field.in as z.ZodType);
  return false;
}
