// The decimal form of the packed columns (db/queries/recommendation.ts sends pass numbers and
// sizes as `string_agg(x::text, ',')`): the same columns as the 8-byte form, and a clear error
// rather than wrong numbers when the packing disagrees with the counts.
import { describe, expect, it } from "vitest";
import { concatColumns, type RecordedChain, toColumns, unpackChains } from "@/lib/recommend";

function doubles(values: number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => {
    view.setFloat64(i * 8, v);
  });
  return bytes;
}

const chains: RecordedChain[] = [
  {
    chain_id: "a",
    passes: [
      {
        pass_number: 0,
        current_size_bytes: 9007199254740991,
        semantic_density_score: 1,
        is_parseable: true,
        schema_valid: true,
      },
      {
        pass_number: 1,
        current_size_bytes: 0,
        semantic_density_score: 0.30000000000000004,
        is_parseable: true,
        schema_valid: true,
      },
    ],
  },
  {
    chain_id: "b",
    passes: [
      {
        pass_number: 12,
        current_size_bytes: 700,
        semantic_density_score: 1e-7,
        is_parseable: false,
        schema_valid: true,
      },
      { pass_number: 10, current_size_bytes: 812, semantic_density_score: 0.5, is_parseable: true, schema_valid: true },
      { pass_number: 11, current_size_bytes: 640, semantic_density_score: 0, is_parseable: true, schema_valid: false },
    ],
    boundaries: [{ pass_number: 11, strategy: "accept_loss" }],
  },
];
const flat = chains.flatMap((c) => c.passes);

describe("unpackChains, decimal integers", () => {
  it("reads them into the same columns as the recorded chains, exact to the largest safe integer", () => {
    const cols = unpackChains({
      chainIds: ["a", "b"],
      passCounts: [2, 3],
      passNumbers: flat.map((p) => p.pass_number).join(","),
      sizes: flat.map((p) => p.current_size_bytes).join(","),
      densities: doubles(flat.map((p) => p.semantic_density_score)),
      broken: flat.map((p) => (!p.is_parseable || !p.schema_valid ? "1" : "0")).join(""),
      failureBoundaries: new Map([["b", 11]]),
    });
    expect(cols).toEqual(toColumns(chains));
    expect(cols.sizeBytes[0]).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("reads no chains from empty columns", () => {
    const cols = unpackChains({
      chainIds: [],
      passCounts: [],
      passNumbers: "",
      sizes: "",
      densities: new Uint8Array(0),
      broken: "",
      failureBoundaries: new Map(),
    });
    expect(cols).toEqual(toColumns([]));
  });

  it("refuses columns that disagree with the pass counts, or that are not integers", () => {
    const packed = {
      chainIds: ["a"],
      passCounts: [2],
      passNumbers: "1,2",
      sizes: "100,90",
      densities: doubles([0.9, 0.8]),
      broken: "00",
      failureBoundaries: new Map<string, number>(),
    };
    expect(() => unpackChains({ ...packed, passNumbers: "1,2,3" })).toThrow(/disagree/);
    expect(() => unpackChains({ ...packed, sizes: "100" })).toThrow(/disagree/);
    expect(() => unpackChains({ ...packed, sizes: "" })).toThrow(/empty number/);
    expect(() => unpackChains({ ...packed, sizes: "100,,90" })).toThrow(/empty number/);
    const three = { ...packed, chainIds: ["a", "b"], passCounts: [2, 1], passNumbers: "1,2,1", broken: "000" };
    expect(() => unpackChains({ ...three, densities: doubles([0.9, 0.8, 0.7]), sizes: "100,90," })).toThrow(
      /empty number/,
    );
    expect(() => unpackChains({ ...packed, passNumbers: "1,2.5" })).toThrow(/'\.'/);
    expect(() => unpackChains({ ...packed, densities: doubles([0.9]) })).toThrow(/disagree/);
  });
});

describe("concatColumns", () => {
  it("joins columns read in ranges into the columns of all their chains, in order", () => {
    const more: RecordedChain = {
      chain_id: "c",
      passes: [
        { pass_number: 1, current_size_bytes: 5, semantic_density_score: 0.25, is_parseable: true, schema_valid: true },
      ],
      boundaries: [{ pass_number: 1, strategy: "restore" }],
    };
    const all = [...chains, more];
    expect(concatColumns(all.map((c) => toColumns([c])))).toEqual(toColumns(all));
    expect(concatColumns([toColumns([]), toColumns(chains), toColumns([]), toColumns([more])])).toEqual(toColumns(all));
    expect(concatColumns([toColumns(chains)])).toEqual(toColumns(chains));
  });
});
