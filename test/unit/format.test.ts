import { describe, expect, it } from "vitest";
import {
  formatAge,
  formatBytes,
  formatCount,
  formatPercent,
  formatSigned,
  formatUtc,
  formatUtcHour,
  formatUtcParts,
} from "@/lib/format";

describe("the one formatting module", () => {
  it("writes sizes in binary units with at most three significant digits", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(10_035)).toBe("9.8 KiB");
    expect(formatBytes(32 * 1024 ** 2)).toBe("32 MiB");
    expect(formatBytes(undefined)).toBe("—");
  });

  it("writes counts, signed counts and shares", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount(null)).toBe("—");
    expect(formatSigned(1200)).toBe("+1,200");
    expect(formatSigned(-300)).toBe("−300");
    expect(formatSigned(0)).toBe("0");
    expect(formatPercent(0.42)).toBe("42%");
    expect(formatPercent(0.042)).toBe("4.2%");
    expect(formatPercent(null)).toBe("—");
  });

  it("writes times in UTC to the second, whatever zone the input was written in", () => {
    expect(formatUtc("2026-03-04T17:05:09.123Z")).toBe("2026-03-04 17:05:09 UTC");
    expect(formatUtc("2026-03-04T19:05:09+02:00")).toBe("2026-03-04 17:05:09 UTC");
    expect(formatUtc(new Date(Date.UTC(2026, 0, 1)))).toBe("2026-01-01 00:00:00 UTC");
    expect(formatUtc(null)).toBe("—");
    expect(formatUtcParts("2026-03-04T17:05:09Z")).toEqual(["2026-03-04", "17:05:09 UTC"]);
    expect(formatUtcHour("2026-03-04T17:00:00.000Z")).toBe("2026-03-04 17:00");
  });

  it("writes ages against the time of the request", () => {
    const now = new Date("2026-03-04T12:00:00Z");
    expect(formatAge("2026-03-04T11:59:30Z", now)).toBe("just now");
    expect(formatAge("2026-03-04T11:56:00Z", now)).toBe("4 min ago");
    expect(formatAge("2026-03-04T09:00:00Z", now)).toBe("3 h ago");
    expect(formatAge("2026-02-20T12:00:00Z", now)).toBe("12 d ago");
    expect(formatAge("2026-03-04T12:00:05Z", now)).toBe("just now");
  });
});
