// The ingest sends its rows as one array literal per column (db/ingest/pg-arrays.ts): every
// value must come back from `unnest` exactly as sent, on both drivers, whatever it holds.
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { type Column, col, queryRows } from "@/db/sql";
import { booleanArray, jsonArray, numberArray, textArray } from "@/db/ingest/pg-arrays";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const id = <T>(v: T) => v;

async function roundTrip<T>(type: string, literal: string, v: Column<T>): Promise<T[]> {
  const db = await getDb();
  const rows = await queryRows(
    db,
    sql`select v from unnest(${literal}::${sql.raw(type)}[]) with ordinality as u(v, n) order by n`,
    { v },
  );
  return rows.map((r) => r.v);
}

// Storable text (no NUL, no lone surrogate), with everything an array literal treats specially.
const storable = fc
  .oneof(
    fc.string({ unit: "grapheme", maxLength: 12 }),
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.constantFrom(
      "",
      "NULL",
      "null",
      " ",
      "{}",
      "{a,b}",
      '"',
      "\\",
      '\\"',
      "\\n",
      "a,b",
      "\n",
      "\t\r",
      "\u0001",
      "😀é",
    ),
  )
  .filter((s) => !s.includes("\u0000") && s.isWellFormed());

describe("array literals of the ingest's columns", () => {
  it("give back every text as sent, nulls as null", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(storable, { nil: null }), { minLength: 1, maxLength: 30 }),
        async (values) => {
          expect(await roundTrip("text", textArray(values, id), col.text.nullable())).toEqual(values);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("give back numbers and booleans exactly", async () => {
    const doubles = [0, -0, 1, 0.1, 1e-7, 0.123456789012345, 1 / 3, 2 ** 53 - 1, 5e-324, null];
    const back = await roundTrip("double precision", numberArray(doubles, id), col.number.nullable());
    // -0 is stored as 0, as when the rows travelled as JSON.
    expect(back).toEqual(doubles.map((v) => (Object.is(v, -0) ? 0 : v)));
    const ints = [0, 1, 2 ** 53 - 1, 42, null];
    expect(await roundTrip("bigint", numberArray(ints, id), col.int.nullable())).toEqual(ints);
    expect(await roundTrip("boolean", booleanArray([true, false, null], id), col.bool.nullable())).toEqual([
      true,
      false,
      null,
    ]);
    expect(() => numberArray([Number.NaN], id)).toThrow(/finite/);
  });

  it("give back JSON values, control characters and quotes included", async () => {
    const values = [
      { a: 1, b: "x\ny", c: ['"q"', "\\", null], d: { "k\t": "\u0001" } },
      null,
      { emoji: "😀", empty: "", nested: [{ deep: [1.5, -2] }] },
    ];
    expect(await roundTrip("jsonb", jsonArray(values, id), col.json)).toEqual(values);
  });

  it("give back timestamps as instants", async () => {
    const stamps = ["2026-01-01T00:00:00.007Z", "2026-06-30T23:59:59+14:00", "0001-01-01T00:00:00Z"];
    const db = await getDb();
    const rows = await queryRows(
      db,
      sql`select (extract(epoch from v) * 1000)::float8 as ms
          from unnest(${textArray(stamps, id)}::timestamptz[]) with ordinality as u(v, n) order by n`,
      { ms: col.number },
    );
    expect(rows.map((r) => r.ms)).toEqual(stamps.map((s) => Date.parse(s)));
  });
});
