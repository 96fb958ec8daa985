import { describe, expect, it } from "vitest";
import { compareCodePoints, pyFormatFixed, pyJsonDumps, pyJsonString, pyStrip } from "@/lib/guard/python";

// Expected strings are what CPython 3.11 prints for the same input.
describe('pyFormatFixed (f"{x:.Nf}")', () => {
  it.each([
    // Exact binary ties round half to even, where toFixed rounds away from zero.
    [0.125, 2, "0.12"],
    [0.375, 2, "0.38"],
    [0.625, 2, "0.62"],
    [0.875, 2, "0.88"],
    [0.0625, 3, "0.062"],
    [0.1875, 3, "0.188"],
    [0.3125, 3, "0.312"],
    // Decimal "ties" that are not ties in binary round by their exact value.
    [0.005, 2, "0.01"],
    [0.015, 2, "0.01"],
    [0.025, 2, "0.03"],
    [0.995, 2, "0.99"],
    [0.0005, 3, "0.001"],
    [0.9995, 3, "1.000"],
    [0.2675, 3, "0.268"],
    [1.005, 2, "1.00"],
    [1, 2, "1.00"],
    [1, 3, "1.000"],
    [0, 2, "0.00"],
    [0, 3, "0.000"],
    [-0, 2, "-0.00"],
    [1e-7, 2, "0.00"],
    [1e-7, 3, "0.000"],
    [5e-324, 3, "0.000"],
    [0.33, 2, "0.33"],
    [0.6268582765830358, 3, "0.627"],
    [0.999999, 2, "1.00"],
    [123.456, 0, "123"],
    [2.5, 0, "2"],
    [3.5, 0, "4"],
  ])("%s with %i digits -> %s", (x, digits, expected) => {
    expect(pyFormatFixed(x, digits)).toBe(expected);
  });

  it("differs from toFixed exactly where Python does", () => {
    expect((0.125).toFixed(2)).toBe("0.13");
    expect(pyFormatFixed(0.125, 2)).toBe("0.12");
  });
});

describe("pyJsonString (json.dumps with ensure_ascii=True)", () => {
  it.each([
    ["plain", '"plain"'],
    ["", '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ["back\\slash", '"back\\\\slash"'],
    ["\n\r\t\b\f", '"\\n\\r\\t\\b\\f"'],
    ["\u0000\u0001\u001f", '"\\u0000\\u0001\\u001f"'],
    ["\u007f", '"\\u007f"'],
    ["caf\u00e9", '"caf\\u00e9"'],
    ["\u2028\u2029", '"\\u2028\\u2029"'],
    ["\uffff", '"\\uffff"'],
    ["\u{1F600}", '"\\ud83d\\ude00"'],
    ["\u{10FFFF}", '"\\udbff\\udfff"'],
    ["/ < > &", '"/ < > &"'],
    ["~ !", '"~ !"'],
  ])("%j -> %s", (input, expected) => {
    expect(pyJsonString(input)).toBe(expected);
  });
});

describe("pyJsonDumps (sort_keys=True)", () => {
  it("uses Python's default separators and sorts keys", () => {
    expect(pyJsonDumps({ pass: "p", number: "2" })).toBe('{"number": "2", "pass": "p"}');
  });

  it("takes compact separators", () => {
    expect(pyJsonDumps({ b: ["x", "y"], a: [] }, { separators: [",", ":"] })).toBe('{"a":[],"b":["x","y"]}');
  });

  it("sorts keys by code point, not UTF-16 unit", () => {
    // U+FF5E sorts before U+1F600 by code point; as UTF-16 the surrogate 0xD83D would come first.
    expect(pyJsonDumps({ "\u{1F600}": 1, "\uff5e": 2, Z: 3, a: 4 })).toBe(
      '{"Z": 3, "a": 4, "\\uff5e": 2, "\\ud83d\\ude00": 1}',
    );
  });

  it("encodes nested values, booleans and null", () => {
    expect(pyJsonDumps({ a: [true, false, null, 3, { y: 1, x: "\u00e9" }] })).toBe(
      '{"a": [true, false, null, 3, {"x": "\\u00e9", "y": 1}]}',
    );
  });

  it("refuses floats, which must be formatted first", () => {
    expect(() => pyJsonDumps({ a: 0.5 })).toThrow(TypeError);
  });
});

describe("compareCodePoints (sorted() on str)", () => {
  it("orders astral characters after the top of the BMP", () => {
    const values = ["\u{1F600}", "\uff5e", "b", "a", "", "ab", "\ue000"];
    expect([...values].sort(compareCodePoints)).toEqual(["", "a", "ab", "b", "\ue000", "\uff5e", "\u{1F600}"]);
    // The JavaScript default would put the astral character before U+E000 and U+FF5E.
    expect([...values].sort()).not.toEqual([...values].sort(compareCodePoints));
  });

  it("puts a prefix first and equal strings together", () => {
    expect(compareCodePoints("abc", "abcd")).toBe(-1);
    expect(compareCodePoints("abcd", "abc")).toBe(1);
    expect(compareCodePoints("x\u{1F600}", "x\u{1F600}")).toBe(0);
  });
});

describe("pyStrip (str.strip())", () => {
  it("strips Python's whitespace set, including U+001C..U+001F and U+0085", () => {
    expect(pyStrip("\u001c\u001d\u001e\u001f x \u0085")).toBe("x");
    expect(pyStrip("\t\n\u000b\f\r \u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000y\u3000")).toBe("y");
  });

  it("keeps what Python keeps: U+FEFF, U+200B, U+180E", () => {
    expect(pyStrip("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
    expect(pyStrip("\u200bx\u200b")).toBe("\u200bx\u200b");
    expect(pyStrip("\u180ex")).toBe("\u180ex");
    // JavaScript's trim() disagrees on both counts.
    expect("\ufeffx".trim()).toBe("x");
    expect("\u001cx".trim()).toBe("\u001cx");
  });

  it("returns an empty string for whitespace only and keeps inner whitespace", () => {
    expect(pyStrip(" \t\n ")).toBe("");
    expect(pyStrip("  a  b  ")).toBe("a  b");
    expect(pyStrip("")).toBe("");
  });
});
