// The raw-row decoders (db/sql.ts): each kind from both drivers' representations to one
// JavaScript value, and a clear error for a column missing, unexpected or of another kind.
// test/integration/sql-rows.test.ts asks the real drivers for the same kinds.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, decodeRows, onlyRow, RowShapeError, type RowOf, type RowSpec } from "@/db/sql";

const one = <S extends RowSpec>(spec: S, row: Record<string, unknown>): RowOf<S> => onlyRow(decodeRows([row], spec));

describe("col.int", () => {
  it("reads int8 as postgres.js (a string) and PGlite (a number or a BigInt) answer it", () => {
    for (const v of ["42", 42, 42n]) expect(one({ n: col.int }, { n: v })).toEqual({ n: 42 });
    expect(one({ n: col.int }, { n: "-7" })).toEqual({ n: -7 });
    expect(one({ n: col.int }, { n: String(2 ** 53 - 1) })).toEqual({ n: 2 ** 53 - 1 });
  });

  it("refuses what is not an exact integer", () => {
    for (const v of ["9007199254740993", 9007199254740993n, "1.5", 1.5, "", " 1", "1e3", true, null, {}]) {
      expect(() => one({ n: col.int }, { n: v }), String(v)).toThrow(RowShapeError);
    }
  });
});

describe("col.number", () => {
  it("reads float8 (a number) and numeric (a string)", () => {
    expect(one({ x: col.number }, { x: 1.5 })).toEqual({ x: 1.5 });
    expect(one({ x: col.number }, { x: "1.5" })).toEqual({ x: 1.5 });
    expect(one({ x: col.number }, { x: "1796173960.577435" })).toEqual({ x: 1796173960.577435 });
    expect(one({ x: col.number }, { x: "NaN" }).x).toBeNaN();
  });

  it("refuses text that is no number, and the empty string Number() would read as 0", () => {
    for (const v of ["", "  ", "abc", true, null, [1]]) {
      expect(() => one({ x: col.number }, { x: v }), String(v)).toThrow(RowShapeError);
    }
  });
});

describe("col.date", () => {
  it("reads timestamptz as both drivers print it, and a Date", () => {
    const at = new Date("2026-12-02T01:12:40.577Z");
    for (const v of ["2026-12-02 01:12:40.577+00", "2026-12-02 01:12:40.577435+00", "2026-12-02 03:12:40.577+02", at]) {
      expect(one({ at: col.date }, { at: v }).at.getTime(), String(v)).toBe(at.getTime());
    }
  });

  it("refuses what is no instant", () => {
    for (const v of ["infinity", "soon", 1796173960577, new Date(Number.NaN), null]) {
      expect(() => one({ at: col.date }, { at: v }), String(v)).toThrow(RowShapeError);
    }
  });
});

describe("text, booleans, arrays, json and closed sets", () => {
  it("reads each kind", () => {
    const spec = {
      t: col.text,
      b: col.bool,
      ids: col.textArray,
      ns: col.intArray,
      j: col.json,
      o: col.jsonObject,
      s: col.oneOf(["live", "evicted"]),
      k: col.jsonOf(z.array(z.tuple([z.string(), z.string()]))),
    };
    const row: RowOf<typeof spec> = one(spec, {
      t: "x",
      b: false,
      ids: ["a"],
      ns: ["1", 2, 3n],
      j: { a: 1 },
      o: { b: [2] },
      s: "evicted",
      k: [["c", "p"]],
    });
    expect(row).toEqual({
      t: "x",
      b: false,
      ids: ["a"],
      ns: [1, 2, 3],
      j: { a: 1 },
      o: { b: [2] },
      s: "evicted",
      k: [["c", "p"]],
    });
  });

  it("refuses each kind's wrong values", () => {
    const cases: Array<[RowSpec[string], unknown]> = [
      [col.text, 1],
      [col.bool, "t"],
      [col.textArray, "{a}"],
      [col.intArray, ["x"]],
      [col.jsonObject, [1]],
      [col.jsonObject, "{}"],
      [col.oneOf(["live"]), "gone"],
      [col.jsonOf(z.object({ a: z.number() })), { a: "1" }],
    ];
    for (const [c, v] of cases) expect(() => one({ c }, { c: v }), `${c.kind} ${String(v)}`).toThrow(RowShapeError);
  });
});

describe("nullable columns", () => {
  it("answer null only where the spec allows it", () => {
    expect(one({ at: col.date.nullable() }, { at: null })).toEqual({ at: null });
    expect(one({ n: col.int.nullable() }, { n: "3" })).toEqual({ n: 3 });
    expect(() => one({ n: col.int }, { n: null })).toThrow(/column "n": expected an integer within 2\^53, got null/);
  });
});

describe("the row's shape", () => {
  it("names the missing column and the query", () => {
    const query = sql`select count(*) as m from passes`;
    expect(() => decodeRows([{ m: 1 }], { n: col.int }, query)).toThrow(
      /column "n": the query returned no such column in: select count\(\*\) as m from passes/,
    );
  });

  it("names a column the spec does not declare", () => {
    expect(() => decodeRows([{ n: 1, extra: 2 }], { n: col.int })).toThrow(/columns "extra" are not in the row's spec/);
  });

  it("checks every row, not only the first", () => {
    expect(() => decodeRows([{ n: 1 }, { n: "x" }], { n: col.int })).toThrow(/column "n"/);
  });

  it("answers no rows as no rows", () => {
    expect(decodeRows([], { n: col.int })).toEqual([]);
  });
});

describe("bytes and json arrays", () => {
  it("reads bytea as either driver gives it (a Uint8Array, or a Buffer)", () => {
    const spec = { b: col.bytes };
    expect(one(spec, { b: new Uint8Array([1, 2]) }).b).toEqual(new Uint8Array([1, 2]));
    expect(one(spec, { b: Buffer.from([3]) }).b[0]).toBe(3);
    expect(() => one(spec, { b: "\\x01" })).toThrow(/column "b": expected bytes, got string/);
  });

  it("reads a parsed json array, each item by its decoder, null as none, and refuses json as text", () => {
    const spec = { ids: col.jsonArrayOf(col.text), counts: col.jsonArrayOf(col.int) };
    expect(one(spec, { ids: ["a", "b"], counts: [1, 2] })).toEqual({ ids: ["a", "b"], counts: [1, 2] });
    expect(() => one(spec, { ids: [], counts: "[1, 2]" })).toThrow(
      /column "counts": expected a json array of an integer, got string/,
    );
    expect(one(spec, { ids: null, counts: null })).toEqual({ ids: [], counts: [] });
    expect(() => one(spec, { ids: ["a", 1], counts: [] })).toThrow(/column "ids": expected text, got number 1/);
    expect(() => one(spec, { ids: "[a", counts: [] })).toThrow(/column "ids": expected a json array of text/);
    expect(() => one(spec, { ids: { a: 1 }, counts: [] })).toThrow(/column "ids": expected a json array of text/);
  });
});

describe("col.rowsOf", () => {
  const spec = { groups: col.rowsOf({ hour: col.date, n: col.int, verdict: col.oneOf(["SAFE", "HALT"]) }) };

  it("decodes each json row by the nested spec; json as text is refused", () => {
    const rows = [{ hour: "2026-12-02T13:00:00+00:00", n: 3, verdict: "SAFE" }];
    const expected = { groups: [{ hour: new Date("2026-12-02T13:00:00Z"), n: 3, verdict: "SAFE" }] };
    expect(one(spec, { groups: rows })).toEqual(expected);
    expect(() => one(spec, { groups: JSON.stringify(rows) })).toThrow(/column "groups": expected a json array of rows/);
    expect(one(spec, { groups: null })).toEqual({ groups: [] });
  });

  it("names the outer column and the inner one that is wrong", () => {
    expect(() => one(spec, { groups: [{ hour: "2026-12-02T13:00:00Z", n: 3, verdict: "MAYBE" }] })).toThrow(
      /column "groups": a json row: column "verdict": expected one of SAFE, HALT, got string "MAYBE"/,
    );
    expect(() => one(spec, { groups: [{ hour: "2026-12-02T13:00:00Z", n: 3 }] })).toThrow(
      /column "groups": a json row: column "verdict": the query returned no such column/,
    );
    expect(() => one(spec, { groups: [{ hour: "2026-12-02T13:00:00Z", n: 3, verdict: "SAFE", x: 1 }] })).toThrow(
      /column "groups": a json row: columns "x" are not in the row's spec/,
    );
  });
});
