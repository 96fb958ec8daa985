// The one keyset cursor format of every list, API and dashboard alike: base64url of the
// JSON array of the last row's sort key. Opaque to clients, and checked on the way back in
// against the key's types for that list and sort: a cursor that does not fit is the
// contract's 422 (invalid_query), never a cast that fails in the database.
import { z } from "zod";
import { ApiError } from "../errors";

type CursorKey = readonly (string | number)[];

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/** A key part that a text column compares with: NUL cannot reach Postgres text. */
const keyText = z.string().refine((v) => !v.includes("\u0000"));

/**
 * The parts a sort key is made of. Timestamps are what Date#toISOString() issues, years
 * 0001-9999 (what both JavaScript and Postgres read the same way); integers are safe
 * integers within the column's range.
 */
export const cursorPart = {
  text: keyText,
  timestamp: z.string().refine((v) => {
    if (!/^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v)) return false;
    const time = Date.parse(v);
    return !Number.isNaN(time) && new Date(time).toISOString() === v;
  }),
  int: z.int().min(0),
  int32: z
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  id: z.int().min(1),
  number: z.number(),
};

const badCursor = (param: string) =>
  new ApiError("invalid_query", "The cursor is not one this server issued; start again without it.", {
    issues: [{ path: param, message: "unrecognised cursor" }],
  });

function parseCursor<T extends z.ZodTuple>(cursor: string, schema: T): z.infer<T> | undefined {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(key);
  return parsed.success ? parsed.data : undefined;
}

/** The sort key of a cursor, typed by `schema`; undefined when absent, 422 when it does not fit. */
export function decodeCursor<T extends z.ZodTuple>(
  cursor: string | undefined,
  schema: T,
  param = "cursor",
): z.infer<T> | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const key = parseCursor(cursor, schema);
  if (key === undefined) throw badCursor(param);
  return key;
}

/** The same cursor as a URL-state field: a page link's cursor that does not fit reads as absent. */
export function cursorParam<T extends z.ZodTuple>(schema: T) {
  return z.string().transform((cursor, ctx): z.infer<T> => {
    const key = parseCursor(cursor, schema);
    if (key === undefined) {
      ctx.addIssue({ code: "custom", message: "unrecognised cursor" });
      return z.NEVER;
    }
    return key;
  });
}
