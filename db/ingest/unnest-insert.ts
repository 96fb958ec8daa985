// A multi-row insert whose column list and values come from the Drizzle table itself: each
// column is sent as one array (db/ingest/pg-arrays.ts) cast to the column's own type, named
// and valued from the same entry, so the list of names and the list of values cannot drift
// apart or swap two columns of one type, and a column added to the table is inserted without
// anyone adding it here.
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { booleanArray, jsonArray, numberArray, textArray } from "./pg-arrays";

type Encode = (values: readonly unknown[]) => string;
const self = (v: unknown) => v;
const ENCODERS: Record<string, Encode> = {
  PgText: (values) => textArray(values, self as (v: unknown) => string | null),
  // Rows carry timestamps as ISO text, which timestamptz input reads.
  PgTimestamp: (values) => textArray(values, self as (v: unknown) => string | null),
  PgBigInt53: (values) => numberArray(values, self as (v: unknown) => number | null),
  PgInteger: (values) => numberArray(values, self as (v: unknown) => number | null),
  PgDoublePrecision: (values) => numberArray(values, self as (v: unknown) => number | null),
  PgBoolean: (values) => booleanArray(values, self as (v: unknown) => boolean | null),
  PgJsonb: (values) => jsonArray(values, self),
};

export interface InsertedColumn {
  /** The column's SQL name, which is also the row field that holds its value. */
  name: string;
  cast: string;
  encode: Encode;
}

/**
 * The columns an insert into `table` writes: every one but those the database computes
 * (generated columns) and those named in `databaseSets` (an identity, a receipt time).
 * Throws for a column type no encoder knows, so a new kind of column fails loudly.
 */
export function insertedColumns(table: PgTable, databaseSets: readonly string[]): InsertedColumn[] {
  return Object.values(getTableColumns(table) as Record<string, PgColumn>)
    .filter((column) => !column.generated && !databaseSets.includes(column.name))
    .map((column) => {
      const encode = ENCODERS[column.columnType];
      if (!encode) throw new Error(`no array encoder for ${column.name} (${column.columnType})`);
      return { name: column.name, cast: `${column.getSQLType()}[]`, encode };
    });
}

/**
 * `(a, b, ...) select * from unnest($1::ta[], $2::tb[], ...)`: the rows, each column's values
 * read from the row's field of the column's name, for `insert into <table> ${...}`.
 */
export function unnestRows<T extends object>(columns: readonly InsertedColumn[], rows: readonly T[]): SQL {
  const names = sql.raw(columns.map((c) => c.name).join(", "));
  const arrays = sql.join(
    columns.map(
      (c) => sql`${c.encode(rows.map((row) => (row as Record<string, unknown>)[c.name]))}::${sql.raw(c.cast)}`,
    ),
    sql`, `,
  );
  return sql`(${names}) select * from unnest(${arrays})`;
}
