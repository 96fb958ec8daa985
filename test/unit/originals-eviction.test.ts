import { describe, expect, it } from "vitest";
import { bytesOverBudget, compareEvictionOrder, planEviction, type EvictionCandidate } from "@/lib/originals/eviction";

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const entry = (hash: string, bytes: number, minute: number): EvictionCandidate => ({
  hash,
  bytes,
  recencyAt: at(minute),
});

describe("eviction order", () => {
  it("is least recently retrieved first, ties broken by hash", () => {
    const sorted = [entry("c", 1, 5), entry("b", 1, 1), entry("a", 1, 5), entry("d", 1, 0)].sort(compareEvictionOrder);
    expect(sorted.map((e) => e.hash)).toEqual(["d", "b", "a", "c"]);
  });
});

describe("planEviction", () => {
  const candidates = [entry("new", 300, 9), entry("old", 100, 1), entry("mid", 200, 5)];

  it("takes the fewest least-recent entries that free enough bytes", () => {
    expect(planEviction(candidates, 50)).toEqual({ victims: [candidates[1]], freedBytes: 100 });
    expect(planEviction(candidates, 101).victims.map((v) => v.hash)).toEqual(["old", "mid"]);
    expect(planEviction(candidates, 300).victims.map((v) => v.hash)).toEqual(["old", "mid"]);
  });

  it("evicts nothing when within budget, and everything it has when that is not enough", () => {
    expect(planEviction(candidates, 0)).toEqual({ victims: [], freedBytes: 0 });
    expect(planEviction(candidates, 10_000)).toMatchObject({ freedBytes: 600 });
  });

  it("does not reorder its input", () => {
    planEviction(candidates, 600);
    expect(candidates.map((c) => c.hash)).toEqual(["new", "old", "mid"]);
  });
});

describe("bytesOverBudget", () => {
  it("is the overshoot, never negative", () => {
    expect(bytesOverBudget(1500, 1000)).toBe(500);
    expect(bytesOverBudget(900, 1000)).toBe(0);
  });
});
