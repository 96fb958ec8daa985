import { describe, expect, it } from "vitest";
import { describeChange, diffContent, diffJson, diffLines, DIFF_MAX_CHARS } from "@/lib/originals/diff";

const orders = (count: number, withSku: boolean) =>
  Array.from({ length: count }, (_, i) => ({
    id: `ord_${i}`,
    status: "paid",
    items: [
      withSku ? { sku: `S${i}`, quantity: 1 } : { quantity: 1 },
      withSku ? { sku: `T${i}`, quantity: 2 } : { quantity: 2 },
    ],
  }));

describe("diffJson", () => {
  it("names the dropped field with how often, and the shortened array with its lengths", () => {
    const diff = diffJson(orders(120, true), orders(12, false));
    expect(diff.changes.map(describeChange)).toEqual([
      "[].items[].sku dropped in all 24 items",
      "(root) shortened in 1 of 1 array: 120 → 12 elements",
    ]);
  });

  it("counts partial drops, added keys, changed values and type changes per path", () => {
    const diff = diffJson(
      {
        a: [
          { x: 1, y: 2 },
          { x: 1, y: 3 },
        ],
        b: "long text",
        c: { d: 1 },
        keep: true,
      },
      { a: [{ x: 1 }, { x: 2, y: 3 }], b: "short", c: "gone", keep: true, extra: 1 },
    );
    expect(diff.changes).toEqual([
      { path: "a[].y", kind: "dropped", count: 1, of: 2 },
      { path: "c", kind: "type_changed", count: 1, of: 0, example: { before: '{"d":1}', after: '"gone"' } },
      { path: "a[].x", kind: "changed", count: 1, of: 2, example: { before: "1", after: "2" } },
      { path: "b", kind: "changed", count: 1, of: 1, example: { before: '"long text"', after: '"short"' } },
      { path: "extra", kind: "added", count: 1, of: 1 },
    ]);
    expect(describeChange(diff.changes[0]!)).toBe("a[].y dropped in 1 of 2 elements");
  });

  it("finds nothing between equal documents, and survives deep nesting", () => {
    expect(diffJson({ a: [1, { b: null }] }, { a: [1, { b: null }] }).changes).toEqual([]);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(diffJson(deep, deep).changes).toEqual([]);
  });
});

describe("diffLines", () => {
  it("gives an edit script with context around each change", () => {
    const diff = diffLines(
      ["a", "b", "c", "d", "e", "f", "g", "h", "i"].join("\n"),
      ["a", "b", "c", "d", "X", "f", "g", "h", "i"].join("\n"),
    );
    expect(diff).toMatchObject({ removed: 1, added: 1, lines_before: 9, lines_after: 9 });
    expect(diff.script?.map((l) => `${l.op[0]}${l.text}`)).toEqual(["sb", "sc", "sd", "re", "aX", "sf", "sg", "sh"]);
    expect(diff.script?.find((l) => l.op === "removed")).toMatchObject({ before: 5 });
  });

  it("keeps only counts when the script would cost too much (bench:originals-diff measures the time)", () => {
    const log = Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join("\n");
    const other = Array.from({ length: 100_000 }, (_, i) => `other ${i}`).join("\n");
    expect(diffLines(log, other)).toMatchObject({ removed: 100_000, added: 100_000, script: null });
  });
});

describe("diffContent", () => {
  it("is structural for JSON, by lines otherwise, and refuses inputs over the limit", () => {
    expect(diffContent(JSON.stringify(orders(3, true)), JSON.stringify(orders(3, false))).kind).toBe("json");
    expect(diffContent("a\nb", "a").kind).toBe("text");
    expect(diffContent("[1]", "summary: one number").kind).toBe("text");
    expect(diffContent("x".repeat(DIFF_MAX_CHARS + 1), "x")).toEqual({ kind: "too_large", limit: DIFF_MAX_CHARS });
  });
});
