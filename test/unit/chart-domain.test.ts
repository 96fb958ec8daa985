import { describe, expect, it } from "vitest";
import { logDomain, logTicks, passDomain, classColorSlots, floorAt, isGap, withGaps } from "@/lib/chart-domain";
import { formatBytes } from "@/lib/format";

describe("log axis", () => {
  // Binary units on the axis like everywhere else (issue 8): bounds and ticks are powers of two.
  it("spans whole powers of two around every value and floor", () => {
    expect(logDomain([96_000, 9_800, 2_048])).toEqual([2_048, 131_072]);
    expect(logDomain([620, 400])).toEqual([256, 1_024]);
    expect(logDomain([1024])).toEqual([1024, 2048]);
  });

  it("draws zero bytes at the bottom instead of failing", () => {
    expect(logDomain([0, 500])).toEqual([1, 1_024]);
    expect(logDomain([])).toEqual([1, 16]);
  });

  it("ticks at every power of two, or sparser ones on wide ranges, each a round binary size", () => {
    expect(logTicks([2_048, 131_072]).map(formatBytes)).toEqual([
      "2 KiB",
      "4 KiB",
      "8 KiB",
      "16 KiB",
      "32 KiB",
      "64 KiB",
      "128 KiB",
    ]);
    expect(logTicks([1, 1_024]).map(formatBytes)).toEqual(["1 B", "4 B", "16 B", "64 B", "256 B", "1 KiB"]);
    expect(logTicks([1, 2 ** 30]).map(formatBytes)).toEqual([
      "1 B",
      "32 B",
      "1 KiB",
      "32 KiB",
      "1 MiB",
      "32 MiB",
      "1 GiB",
    ]);
  });
});

describe("byte labels", () => {
  it("formats sizes in binary units", () => {
    expect(formatBytes(200)).toBe("200 B");
    expect(formatBytes(2048)).toBe("2 KiB");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(98_304)).toBe("96 KiB");
    expect(formatBytes(5 * 1024 ** 3)).toBe("5 GiB");
  });

  it("prints a dash for a size that is not there", () => {
    expect(formatBytes(null)).toBe("—");
  });
});

describe("pass axis", () => {
  it("includes a max-pass limit near the chain and leaves out one far beyond it", () => {
    expect(passDomain(1, 5, [8])).toEqual({ domain: [1, 9], limits: [8] });
    expect(passDomain(1, 5, [100])).toEqual({ domain: [1, 5], limits: [] });
    expect(passDomain(1, 5, [6, 6])).toEqual({ domain: [1, 7], limits: [6] });
  });

  it("gives a one-pass chain some width", () => {
    expect(passDomain(1, 1, [])).toEqual({ domain: [1, 2], limits: [] });
  });
});

describe("classColorSlots", () => {
  it("gives a class the same slot whatever else is on the chart and in whatever order", () => {
    const alone = classColorSlots(["summary"]);
    const withOthers = classColorSlots(["api-json", "summary", "base64"]);
    const reversed = classColorSlots(["base64", "summary", "api-json"]);
    expect(withOthers).toEqual(reversed);
    expect(withOthers.summary).toBe(alone.summary);
  });

  it("gives every class on one chart its own slot while slots last", () => {
    const names = ["a", "b", "c", "d", "e", "f"];
    const slots = classColorSlots(names);
    expect(new Set(Object.values(slots)).size).toBe(6);
    for (const s of Object.values(slots)) expect(s).toBeGreaterThanOrEqual(1);
  });
});

describe("withGaps", () => {
  const pts = [1, 2, 5, 6].map((n) => ({ pass_number: n }));
  it("puts a value-less row before a pass that follows missing passes", () => {
    const rows = withGaps(pts, [5]);
    expect(rows.map((r) => [r.pass_number, isGap(r)])).toEqual([
      [1, false],
      [2, false],
      [4.5, true],
      [5, false],
      [6, false],
    ]);
  });
  it("draws no gap before the first point", () => {
    expect(withGaps(pts, [1]).some(isGap)).toBe(false);
  });
});

describe("floorAt", () => {
  it("finds the span that judged a pass", () => {
    const floors = [
      { from: 1, v: 1 },
      { from: 4, v: 2 },
    ];
    expect(floorAt(floors, 3)?.v).toBe(1);
    expect(floorAt(floors, 4)?.v).toBe(2);
    expect(floorAt(floors, 9)?.v).toBe(2);
  });
});
