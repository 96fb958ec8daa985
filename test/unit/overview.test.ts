import { describe, expect, it } from "vitest";
import {
  alignOrigin,
  chooseStride,
  MAX_BUCKETS,
  OTHER_CLASSES,
  pivotCollapseRates,
  rangeStart,
} from "@/lib/chains/overview";

const NOW = new Date("2026-03-10T12:34:56.000Z");

describe("ranges and buckets", () => {
  it("starts a range back from now, and all time at the first activity", () => {
    expect(rangeStart("24h", NOW, null)).toEqual(new Date("2026-03-09T12:34:56.000Z"));
    expect(rangeStart("all", NOW, new Date("2025-01-01T00:00:00Z"))).toEqual(new Date("2025-01-01T00:00:00Z"));
    expect(rangeStart("all", NOW, null)).toBeNull();
  });

  it("picks the narrowest round stride that keeps the bucket count down", () => {
    expect(chooseStride(86_400)).toBe(3_600);
    expect(chooseStride(7 * 86_400)).toBe(6 * 3_600);
    expect(chooseStride(30 * 86_400)).toBe(86_400);
    expect(Math.ceil((90 * 86_400) / chooseStride(90 * 86_400))).toBeLessThanOrEqual(MAX_BUCKETS);
  });

  it("aligns bucket origins on round boundaries", () => {
    expect(alignOrigin(NOW, 3_600).toISOString()).toBe("2026-03-10T12:00:00.000Z");
    expect(alignOrigin(NOW, 86_400).toISOString()).toBe("2026-03-10T00:00:00.000Z");
  });
});

describe("pivotCollapseRates", () => {
  const origin = new Date("2026-03-10T00:00:00Z");
  const end = new Date("2026-03-10T04:00:00Z");

  it("gives one point per bucket, with a rate per class and gaps where nothing started", () => {
    const { classes, points } = pivotCollapseRates(
      [
        { bucket: "2026-03-10T01:00:00.000Z", content_class: "a", started: 4, collapsed: 1 },
        { bucket: "2026-03-10T03:00:00.000Z", content_class: "a", started: 2, collapsed: 2 },
        { bucket: "2026-03-10T03:00:00.000Z", content_class: "b", started: 1, collapsed: 0 },
      ],
      origin,
      end,
      3_600,
    );
    expect(classes).toEqual(["a", "b"]);
    expect(points.map((p) => p.rate.a)).toEqual([null, 0.25, null, 1]);
    expect(points[3]?.rate.b).toBe(0);
    expect(points[3]?.started).toEqual({ a: 2, b: 1 });
  });

  it("folds the quieter classes into one series when there are too many", () => {
    const rows = ["a", "b", "c", "d"].map((c, i) => ({
      bucket: "2026-03-10T00:00:00.000Z",
      content_class: c,
      started: 10 - i,
      collapsed: 1,
    }));
    const { classes, points } = pivotCollapseRates(rows, origin, end, 3_600, 3);
    expect(classes).toEqual(["a", "b", OTHER_CLASSES]);
    expect(points[0]?.started[OTHER_CLASSES]).toBe(8 + 7);
    expect(points[0]?.collapsed[OTHER_CLASSES]).toBe(2);
  });
});
