import { describe, expect, it } from "vitest";
import { formatBytes, formatByteTick, logDomain, logTicks, passDomain } from "@/lib/chart-domain";

describe("log axis", () => {
  it("spans whole powers of ten around every value and floor", () => {
    expect(logDomain([96_000, 9_800, 2_048])).toEqual([1_000, 100_000]);
    expect(logDomain([620, 400])).toEqual([100, 1_000]);
    expect(logDomain([1000])).toEqual([1000, 10_000]);
  });

  it("draws zero bytes at the bottom instead of failing", () => {
    expect(logDomain([0, 500])).toEqual([1, 1_000]);
    expect(logDomain([])).toEqual([1, 10]);
  });

  it("ticks at 1, 2, 5 per decade, or only powers of ten on wide ranges", () => {
    expect(logTicks([100, 10_000])).toEqual([100, 200, 500, 1_000, 2_000, 5_000, 10_000]);
    expect(logTicks([1, 1_000_000])).toEqual([1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]);
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

  it("labels decimal ticks in decimal units", () => {
    expect(formatByteTick(500)).toBe("500 B");
    expect(formatByteTick(2_000)).toBe("2 kB");
    expect(formatByteTick(5_000_000)).toBe("5 MB");
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
