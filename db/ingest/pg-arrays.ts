// Rows sent to PostgreSQL as one array literal per column, unpacked with `unnest`: one
// parameter per column whatever the number of rows (no 65,535-parameter cap), and the
// server reads plain array text, which costs it far less than a JSON document of records.
// Both drivers send a string parameter as text and the statement casts it (`$1::bigint[]`).
//
// A JSON array of strings, numbers, booleans and nulls is an array literal once its brackets
// become braces: a JSON string is a double-quoted element whose `\"` and `\\` the array
// reader unescapes the same way, an unquoted `null` is NULL, and `true`/`false` and JSON
// numbers are what boolean and numeric input read. JSON.stringify does that in native code.
// Only control characters differ (JSON writes `\n`, the array reader would read `n`); a
// column with one is written element by element instead.

const CONTROL_ESCAPE = /\\[bfnrtu]/;
const NEEDS_ESCAPE = /["\\]/g;

type Element = string | number | boolean | null;

function literal(values: readonly Element[]): string {
  const json = JSON.stringify(values);
  if (!CONTROL_ESCAPE.test(json)) return `{${json.slice(1, -1)}}`;
  // Rare (a control character, or text that only looks like one's escape): quote by hand.
  return `{${values
    .map((v) => (v === null ? "NULL" : typeof v === "string" ? `"${v.replace(NEEDS_ESCAPE, "\\$&")}"` : String(v)))
    .join(",")}}`;
}

/** The array literal of a column of text (or of anything read from text, such as timestamps). */
export function textArray<T>(rows: readonly T[], value: (row: T) => string | null | undefined): string {
  return literal(rows.map((row) => value(row) ?? null));
}

/** The array literal of a numeric column; values must be finite (JSON would write null). */
export function numberArray<T>(rows: readonly T[], value: (row: T) => number | null | undefined): string {
  return literal(
    rows.map((row) => {
      const v = value(row) ?? null;
      if (v !== null && !Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
      return v;
    }),
  );
}

export function booleanArray<T>(rows: readonly T[], value: (row: T) => boolean | null | undefined): string {
  return literal(rows.map((row) => value(row) ?? null));
}

/** The array literal of a jsonb column: each value as JSON text; null and undefined are SQL null. */
export function jsonArray<T>(rows: readonly T[], value: (row: T) => unknown): string {
  return literal(
    rows.map((row) => {
      const v = value(row);
      return v == null ? null : JSON.stringify(v);
    }),
  );
}
