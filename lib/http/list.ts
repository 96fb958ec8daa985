import { z } from "zod";
import { ApiError, zodIssues } from "../errors";

export const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

// Digits only: Number() would also take "1e2", "0x10" and " 5 ", which no client means as a page size.
export const limitSchema = z
  .string()
  .regex(/^[0-9]+$/, "limit must be a whole number")
  .transform(Number)
  .pipe(z.number().min(1, "limit must be at least 1").max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}`))
  .default(DEFAULT_LIMIT);

/**
 * Parses URL search params with a zod schema; repeated keys keep their first value, except
 * `repeatable` ones, whose values are joined with commas (`status=a&status=b` is `status=a,b`). A NUL
 * is refused for every parameter: no stored value can contain one, and Postgres text
 * cannot carry it into a query.
 */
export function parseSearchParams<S extends z.ZodType>(
  url: string | URL,
  schema: S,
  repeatable: readonly string[] = [],
): z.infer<S> {
  const params = new URL(url).searchParams;
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (!Object.hasOwn(raw, key)) raw[key] = value;
    else if (repeatable.includes(key)) raw[key] = `${raw[key]},${value}`;
  }
  const withNul = Object.entries(raw).flatMap(([key, value]) => (value.includes("\u0000") ? [key] : []));
  if (withNul.length > 0) {
    throw new ApiError("invalid_query", "The query parameters are not valid.", {
      issues: withNul.map((path) => ({ path, message: "must not contain NUL characters" })),
    });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError("invalid_query", "The query parameters are not valid.", { issues: zodIssues(parsed.error) });
  }
  return parsed.data;
}
