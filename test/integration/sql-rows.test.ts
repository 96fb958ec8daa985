// Each kind of column as the driver under test answers it (PGlite by default, postgres.js with
// TEST_DATABASE_URL) decodes to the same JavaScript value: the drivers differ (int8 and
// numeric as strings or numbers, timestamps as text), the rows do not.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { col, onlyRow, queryRows, RowShapeError } from "@/db/sql";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

describe("raw rows on this driver", () => {
  it("decode every kind to one value", async () => {
    const db = await getDb();
    const row = onlyRow(
      await queryRows(
        db,
        sql`select count(*) as n, sum(x) as total, sum(x::int8) as big_total, max(x)::int2 as small,
          ${2 ** 53 - 1}::int8 as largest, 1.25::numeric as ratio, 0.5::float8 as f8, 0.25::real as f4,
          true as yes, 'x'::text as t, '2026-12-02T01:12:40.577Z'::timestamptz as at,
          '2026-12-02 03:12:40.577435+02'::timestamptz as at_micro, null::timestamptz as never,
          '{"a":[1,2]}'::jsonb as jb, json_agg(x order by x) as agg, array['a','b'] as texts,
          array[1, ${2 ** 40}]::int8[] as ints, 'live' as status, null::int8 as missing
        from (values (1), (2)) as v(x)`,
        {
          n: col.int,
          total: col.int,
          big_total: col.int,
          small: col.int,
          largest: col.int,
          ratio: col.number,
          f8: col.number,
          f4: col.number,
          yes: col.bool,
          t: col.text,
          at: col.date,
          at_micro: col.date,
          never: col.date.nullable(),
          jb: col.json,
          agg: col.json,
          texts: col.textArray,
          ints: col.intArray,
          status: col.oneOf(["live", "evicted"]),
          missing: col.int.nullable(),
        },
      ),
    );
    expect(row).toEqual({
      n: 2,
      total: 3,
      big_total: 3,
      small: 2,
      largest: 2 ** 53 - 1,
      ratio: 1.25,
      f8: 0.5,
      f4: 0.25,
      yes: true,
      t: "x",
      at: new Date("2026-12-02T01:12:40.577Z"),
      at_micro: new Date("2026-12-02T01:12:40.577Z"),
      never: null,
      jb: { a: [1, 2] },
      agg: [1, 2],
      texts: ["a", "b"],
      ints: [1, 2 ** 40],
      status: "live",
      missing: null,
    });
  });

  it("refuses an int8 past 2^53, which neither driver can answer exactly as a number", async () => {
    const db = await getDb();
    await expect(queryRows(db, sql`select ${2 ** 53}::int8 + 1 as n`, { n: col.int })).rejects.toThrow(RowShapeError);
  });

  it("names a column the query does not return", async () => {
    const db = await getDb();
    await expect(queryRows(db, sql`select 1 as m`, { n: col.int })).rejects.toThrow(
      /column "n": the query returned no such column in: select 1 as m/,
    );
  });

  it("decodes json_agg of rows, arrays of values and bytes by their specs", async () => {
    const db = await getDb();
    const row = onlyRow(
      await queryRows(
        db,
        sql`select
          (select json_agg(r order by r.n) from (
            select x as n, 'c' || x as id, timestamptz '2026-12-02T00:00:00Z' + x * interval '1 hour' as at,
              array[x, x + 1] as pair, (x * 2)::int8 as big
            from (values (1), (2)) as v(x)) as r) as rows,
          (select json_agg(r) from (select 1 as n where false) as r) as none,
          (select json_agg('id-' || x order by x) from (values (1), (2)) as v(x)) as ids,
          '\\x0102ff'::bytea as raw`,
        {
          rows: col.rowsOf({ n: col.int, id: col.text, at: col.date, pair: col.intArray, big: col.int }),
          none: col.rowsOf({ n: col.int }),
          ids: col.jsonArrayOf(col.text),
          raw: col.bytes,
        },
      ),
    );
    expect(row.rows).toEqual([
      { n: 1, id: "c1", at: new Date("2026-12-02T01:00:00Z"), pair: [1, 2], big: 2 },
      { n: 2, id: "c2", at: new Date("2026-12-02T02:00:00Z"), pair: [2, 3], big: 4 },
    ]);
    expect(row.none).toEqual([]);
    expect(row.ids).toEqual(["id-1", "id-2"]);
    expect([...row.raw]).toEqual([1, 2, 255]);
  });
});
