// Raw SQL rows, typed and checked in one place. Where drizzle's query builder says a query
// plainly it types the rows itself; what needs raw SQL (CTEs, `json_to_recordset`, locks,
// aggregates over expressions) goes through `queryRows(executor, query, row)`, whose `row` is
// a spec of one decoder per column (`{ n: col.int, oldest: col.date.nullable() }`): the
// row's type is derived from it, never written by hand.
//
// The drivers answer the same SQL differently: `execute()` gives `{ rows }` on PGlite and an
// array on postgres.js; int8 (every `count(*)`, `sum(int)`) comes as a string on postgres.js
// and as a number (a BigInt past 2^53) on PGlite; numeric as a string on both; timestamptz as
// a string on both (drizzle's type parsers), a Date only where a caller made one. Each decoder
// accepts every form a driver gives and answers one JavaScript value. A column missing,
// unexpected or of another kind is a bug in the query, not bad input: it throws RowShapeError,
// which the error contract answers as a generic 500 and logs.
//
// Decoders are plain functions, one call per column, cheap enough for the chain series and the
// roll-ups; `col.jsonOf` parses with zod per row, so it is for json that needs checking.
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { z } from "zod";
import type { Executor } from "./types";

/** A query's rows do not have the shape its spec declares: a bug in the query layer. */
export class RowShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RowShapeError";
  }
}

/** Thrown by a decoder; `decodeRows` adds the column and the query. */
class KindError extends Error {}

/** One column's decoder: a plain function from what either driver answers to one value. */
export interface Column<T> {
  readonly kind: string;
  readonly decode: (value: unknown) => T;
  /** The same column where SQL null is allowed, answered as null. */
  nullable(): Column<T | null>;
}

function column<T>(kind: string, decode: (value: unknown) => T): Column<T> {
  return {
    kind,
    decode,
    nullable: () => column<T | null>(`${kind} or null`, (v) => (v === null ? null : decode(v))),
  };
}

const shown = (v: unknown) =>
  v === null
    ? "null"
    : typeof v === "string"
      ? `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`
      : typeof v === "object"
        ? (v?.constructor?.name ?? "object")
        : `${typeof v} ${String(v)}`;

const wrong = (kind: string, v: unknown): never => {
  throw new KindError(`expected ${kind}, got ${shown(v)}`);
};

const INTEGER_TEXT = /^-?\d+$/;

/** Any integer type (int2/4/8, `count(*)`, an integral numeric sum): a number, exact below 2^53. */
function toInt(v: unknown): number {
  if (typeof v === "number") return Number.isSafeInteger(v) ? v : wrong("an integer within 2^53", v);
  const n = typeof v === "bigint" ? Number(v) : typeof v === "string" && INTEGER_TEXT.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : wrong("an integer within 2^53", v);
}

/** float4/float8 (numbers on both drivers) and numeric (a string on both). */
function toNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    if (!Number.isNaN(n) || v === "NaN") return n;
  }
  return wrong("a number", v);
}

/** timestamptz: a string in PostgreSQL's output format on both drivers, or a Date. */
function toDate(v: unknown): Date {
  const d = v instanceof Date ? v : typeof v === "string" ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d : wrong("a timestamp", v);
}

function toText(v: unknown): string {
  return typeof v === "string" ? v : wrong("text", v);
}

function toBool(v: unknown): boolean {
  return typeof v === "boolean" ? v : wrong("a boolean", v);
}

function arrayOf<T>(kind: string, item: (v: unknown) => T) {
  return (v: unknown): T[] => {
    if (!Array.isArray(v)) return wrong(`an array of ${kind}`, v);
    const out = new Array<T>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = item(v[i]);
    return out;
  };
}

/**
 * A json array as both drivers answer `json_agg` (parsed); SQL null, which an aggregate over
 * no rows gives, is the empty array. Json as text (a cast to text) is refused like any other
 * kind: no query sends it, and a decoder that guessed would hide the cast.
 */
function jsonArray(kind: string, v: unknown): unknown[] {
  if (v === null) return [];
  return Array.isArray(v) ? v : wrong(kind, v);
}

/** The decoders, one per kind of column. */
export const col = {
  /** int2/int4/int8, `count(*)`, sums of integers: a number, refused past 2^53. */
  int: column("an integer", toInt),
  /** float4/float8/numeric: a number. */
  number: column("a number", toNumber),
  /** timestamptz: a Date. */
  date: column("a timestamp", toDate),
  text: column("text", toText),
  bool: column("a boolean", toBool),
  /** json/jsonb, as both drivers parse it, unchecked: the caller narrows it. */
  json: column("json", (v): unknown => v),
  /** json/jsonb holding an object (a payload, metadata): checked to be one, its fields not. */
  jsonObject: column("a json object", (v) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : wrong("a json object", v),
  ),
  /** bytea: a Uint8Array (postgres.js gives a Buffer, which is one). */
  bytes: column("bytes", (v) => (v instanceof Uint8Array ? v : wrong("bytes", v))),
  textArray: column("an array of text", arrayOf("text", toText)),
  intArray: column("an array of integers", arrayOf("integers", toInt)),
  /** A text column holding one of a closed set of values (a status, a verdict). */
  oneOf<const V extends string>(values: readonly V[]): Column<V> {
    const allowed = new Set<string>(values);
    const kind = `one of ${values.join(", ")}`;
    return column(kind, (v) => (typeof v === "string" && allowed.has(v) ? (v as V) : wrong(kind, v)));
  },
  /** A json array (`json_agg` of values) whose items each decode as `item`; SQL null is []. */
  jsonArrayOf<T>(item: Column<T>): Column<T[]> {
    const kind = `a json array of ${item.kind}`;
    const items = arrayOf(item.kind, item.decode);
    return column(kind, (v) => items(jsonArray(kind, v)));
  },
  /**
   * A json array of rows (`json_agg` of a row or of `json_build_object`), each decoded by its
   * own spec as a query's rows are; SQL null is []. Inside json, timestamps are text and
   * integers numbers, which the decoders read as they read the drivers' answers.
   */
  rowsOf<S extends RowSpec>(spec: S): Column<RowOf<S>[]> {
    return column("json rows", (v) => {
      const rows = jsonArray("a json array of rows", v);
      try {
        return decodeRows(rows, spec);
      } catch (error) {
        if (error instanceof RowShapeError) throw new KindError(`a json row: ${error.message}`);
        throw error;
      }
    });
  },
  /** json/jsonb checked by a zod schema (per row: keep it to columns that need checking). */
  jsonOf<S extends z.ZodType>(schema: S): Column<z.output<S>> {
    return column("json of its schema", (v) => {
      const parsed = schema.safeParse(v);
      return parsed.success ? parsed.data : wrong(`json of its schema (${parsed.error.issues[0]?.message})`, v);
    });
  },
};

/** A row's spec: one decoder per selected column, named as the SQL names it. */
export type RowSpec = Readonly<Record<string, Column<unknown>>>;
/** The row a spec decodes to. */
export type RowOf<S extends RowSpec> = { -readonly [K in keyof S]: S[K] extends Column<infer T> ? T : never };

/** A spec's columns as a select list, where they are plain column names of one table. */
export function columnList(spec: RowSpec): SQL {
  return sql.raw(Object.keys(spec).join(", "));
}

/**
 * Decodes driver rows by a spec. Every spec column must be present in every row; the first
 * row is also checked for columns the spec does not name, so that spec and SQL stay one list.
 */
export function decodeRows<S extends RowSpec>(rows: readonly unknown[], spec: S, query?: SQL): RowOf<S>[] {
  const keys = Object.keys(spec);
  const decoders = keys.map((k) => (spec[k] as Column<unknown>).decode);
  const out = new Array<RowOf<S>>(rows.length);
  let key = "";
  try {
    for (let i = 0; i < rows.length; i++) {
      const raw = rows[i] as Record<string, unknown>;
      const row: Record<string, unknown> = {};
      for (let j = 0; j < keys.length; j++) {
        key = keys[j] as string;
        const value = raw[key];
        if (value === undefined) throw new KindError("the query returned no such column");
        row[key] = (decoders[j] as (v: unknown) => unknown)(value);
      }
      out[i] = row as RowOf<S>;
    }
  } catch (error) {
    if (!(error instanceof KindError)) throw error;
    throw new RowShapeError(`column "${key}": ${error.message}${querySuffix(query)}`);
  }
  const first = rows[0] as Record<string, unknown> | undefined;
  if (first) {
    const extra = Object.keys(first).filter((k) => !(k in spec));
    if (extra.length > 0) {
      throw new RowShapeError(
        `columns ${extra.map((k) => `"${k}"`).join(", ")} are not in the row's spec${querySuffix(query)}`,
      );
    }
  }
  return out;
}

// Rendered only on the error path: the message names the query a developer must fix.
function querySuffix(query: SQL | undefined): string {
  if (!query) return "";
  try {
    const text = new PgDialect().sqlToQuery(query).sql.replace(/\s+/g, " ").trim();
    return ` in: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
  } catch {
    return "";
  }
}

/** Raw SQL rows as the spec `row` decodes them, the same on both drivers. */
export async function queryRows<S extends RowSpec>(executor: Executor, query: SQL, row: S): Promise<RowOf<S>[]> {
  return decodeRows(driverRows(await executor.execute(query)), row, query);
}

/** PGlite answers `{ rows }`, postgres.js an array. */
function driverRows(result: unknown): unknown[] {
  return Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
}

/** The one row an aggregate, a `returning` or a locked read must give; none is a bug, not bad input. */
export function onlyRow<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new RowShapeError("expected one row, got none");
  return row;
}
