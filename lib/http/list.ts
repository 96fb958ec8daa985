import { z } from "zod";
import { ApiError, zodIssues } from "../errors";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export const limitSchema = z.coerce
  .number()
  .int("limit must be a whole number")
  .min(1, "limit must be at least 1")
  .max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}`)
  .default(DEFAULT_LIMIT);

/** Keyset cursors are opaque to clients: base64url of the last row's sort key. */
export function encodeCursor(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined, arity: number): unknown[] | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length === arity) return key;
  } catch {
    // fall through to the error below
  }
  throw new ApiError("invalid_query", "The cursor is not one this server issued; start again without it.", {
    issues: [{ path: "cursor", message: "unrecognised cursor" }],
  });
}

/** Parses URL search params with a zod schema; repeated keys keep their first value. */
export function parseSearchParams<S extends z.ZodType>(url: string | URL, schema: S): z.infer<S> {
  const params = new URL(url).searchParams;
  const raw: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in raw)) raw[key] = value;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError("invalid_query", "The query parameters are not valid.", { issues: zodIssues(parsed.error) });
  }
  return parsed.data;
}
