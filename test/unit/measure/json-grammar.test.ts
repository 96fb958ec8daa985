// The measurement reads JSON by RFC 8259's grammar, strictly, in both of its readers: the
// one-pass reader behind `parseable` (json-read.ts) and the tree the schema check walks
// (schema.ts), which share how strings and numbers are read (json-escape.ts).
import { describe, expect, it } from "vitest";
import { measure } from "@/lib/measure/index";
import { type JValue, parseJson } from "@/lib/measure/schema";

const parseable = (content: string) => measure(content, { format: "json" }).parseable;
const schemaValid = (content: string) => measure(content, { format: "json", requiredFields: ["a"] }).schema_valid;

const REFUSED: Array<[string, string]> = [
  ['{"a":"x\ny"}', "control character in string"],
  ['{"a":"x\ty"}', "control character in string"],
  ['{"a":"\\q"}', "bad escape"],
  ['{"a":"\\u12G4"}', "bad \\u escape"],
  ['{"a":"\\u12"}', "bad \\u escape"],
  ['{"a":"open}', "unterminated string"],
  ['{"a":-}', "bad number"],
  ['{"a":1.}', "bad fraction"],
  ['{"a":1e}', "bad exponent"],
  ['{"a":1e+}', "bad exponent"],
];

describe("JSON's strings and numbers", () => {
  it.each(REFUSED)("refuses %s in both readers (%s)", (content, error) => {
    expect(parseable(content)).toBe(false);
    expect(schemaValid(content)).toBe(false);
    const parsed = parseJson(content);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(new RegExp(`^${error.replace(/\\/g, "\\\\")} at offset \\d+$`));
  });

  it("refuses a leading zero followed by digits, and what follows a complete number", () => {
    expect(parseable('{"a":01}')).toBe(false);
    expect(parseJson('{"a":01}').ok).toBe(false);
  });

  it("reads every escape and every number form JSON has, the same in both readers", () => {
    const content = '{"a":"q\\"b\\\\s\\/f\\bf\\fn\\nr\\rt\\t\\u0041\\u00e9","n":[0,-0,1.5,-2.25e10,3E-2,4e+1,123]}';
    expect(parseable(content)).toBe(true);
    expect(schemaValid(content)).toBe(true);
    const parsed = parseJson(content);
    expect(parsed.ok).toBe(true);
    const tree = (parsed as { value: JValue }).value as Map<string, JValue>;
    expect(tree.get("a")).toBe('q"b\\s/f\bf\fn\nr\rt\tAé');
    expect((tree.get("n") as { num: string }[]).map((n) => n.num)).toEqual([
      "0",
      "-0",
      "1.5",
      "-2.25e10",
      "3E-2",
      "4e+1",
      "123",
    ]);
  });
});
