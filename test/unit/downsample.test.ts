import { describe, expect, it } from "vitest";
import { DOWNSAMPLE, PASS_FLAG, passFlags, type FlagInput } from "@/lib/chains/downsample";
import { bucketIndex, type Sample, selectSamples } from "../support/downsample-oracle";

const pass = (n: number, over: Partial<FlagInput> = {}): FlagInput => ({
  pass_id: `p${n}`,
  pass_number: n,
  input_content_hash: `h${n - 1}`,
  current_content_hash: `h${n}`,
  current_size_bytes: 10_000,
  semantic_density_score: 0.9,
  verdict: "SAFE_TO_COMPRESS",
  client_mismatch: false,
  policy_version: 1,
  content_class: "c",
  floor_size: 1_000,
  floor_density: 0.5,
  ...over,
});

describe("passFlags", () => {
  it("flags the first pass, and a chain that starts late as missing passes", () => {
    expect(passFlags(null, pass(1))).toBe(PASS_FLAG.first);
    expect(passFlags(null, pass(3))).toBe(PASS_FLAG.first | PASS_FLAG.integrity);
  });

  it("flags nothing on an unremarkable pass", () => {
    expect(passFlags(pass(1), pass(2))).toBe(0);
  });

  it("flags floor crossings in both directions, against each pass's own floor", () => {
    expect(passFlags(pass(1), pass(2, { current_size_bytes: 999 }))).toBe(PASS_FLAG.sizeCrossing);
    expect(passFlags(pass(1, { current_size_bytes: 999 }), pass(2))).toBe(PASS_FLAG.sizeCrossing);
    expect(passFlags(pass(1), pass(2, { semantic_density_score: 0.49 }))).toBe(PASS_FLAG.densityCrossing);
    // Same size, but the new policy version's floor is above it: that is a crossing too.
    expect(passFlags(pass(1), pass(2, { floor_size: 20_000, policy_version: 2 }))).toBe(
      PASS_FLAG.sizeCrossing | PASS_FLAG.policyChange,
    );
  });

  it("flags verdict changes, mismatches, boundaries and the last pass", () => {
    expect(passFlags(pass(1), pass(2, { verdict: "COLLAPSE_IMMINENT" }))).toBe(PASS_FLAG.verdictChange);
    expect(passFlags(pass(1), pass(2, { client_mismatch: true }))).toBe(PASS_FLAG.clientMismatch);
    expect(passFlags(pass(1), pass(2), { isBoundary: true, isLast: true })).toBe(PASS_FLAG.boundary | PASS_FLAG.last);
  });

  it("flags the integrity findings of lib/chains/integrity.ts", () => {
    expect(passFlags(pass(1), pass(3))).toBe(PASS_FLAG.integrity);
    expect(passFlags(pass(2), pass(2, { pass_id: "again" }))).toBe(PASS_FLAG.integrity);
    expect(passFlags(pass(1), pass(2, { input_content_hash: "elsewhere" }))).toBe(PASS_FLAG.integrity);
    // No input hash sent: nothing to compare.
    expect(passFlags(pass(1), pass(2, { input_content_hash: null }))).toBe(0);
  });
});

describe("bucketIndex", () => {
  it("cuts [lo, hi] into equal buckets, the last pass in the last bucket", () => {
    expect(bucketIndex(1, 1, 100, 10)).toBe(0);
    expect(bucketIndex(10, 1, 100, 10)).toBe(0);
    expect(bucketIndex(11, 1, 100, 10)).toBe(1);
    expect(bucketIndex(100, 1, 100, 10)).toBe(9);
    expect(bucketIndex(5, 5, 5, 10)).toBe(0);
  });
});

describe("selectSamples", () => {
  const options = { buckets: 4, fullDetailUpTo: 10, flaggedCap: 3 };
  const sample = (n: number, size: number, density: number, flags = 0): Sample => ({
    key: n,
    passNumber: n,
    values: [size, density],
    flags,
  });

  it("keeps every sample of a short series", () => {
    const samples = Array.from({ length: 10 }, (_, i) => sample(i + 1, 100 - i, 0.5));
    expect(selectSamples(samples, options)).toEqual(samples.map((s) => s.key));
  });

  it("keeps each bucket's first, last, minimum and maximum of every curve, in order", () => {
    // 40 samples, 4 buckets of 10. Sizes fall, densities peak at 15 and dip at 27.
    const samples = Array.from({ length: 40 }, (_, i) => {
      const n = i + 1;
      return sample(n, 1000 - n, n === 15 ? 0.99 : n === 27 ? 0.01 : 0.5);
    });
    const kept = selectSamples(samples, options);
    expect(kept).toEqual([1, 10, 11, 15, 20, 21, 27, 30, 31, 40]);
  });

  it("breaks ties like SQL: earliest minimum, latest maximum", () => {
    const samples = Array.from({ length: 20 }, (_, i) => sample(i + 1, 7, 0.5));
    expect(selectSamples(samples, { ...options, buckets: 1 })).toEqual([1, 20]);
  });

  it("always keeps flagged samples, up to the cap, earliest first", () => {
    const samples = Array.from({ length: 40 }, (_, i) =>
      sample(i + 1, 1000 - (i + 1), 0.5, [5, 6, 7, 8].includes(i + 1) ? PASS_FLAG.sizeCrossing : 0),
    );
    const kept = selectSamples(samples, options);
    expect(kept).toContain(5);
    expect(kept).toContain(7);
    expect(kept).not.toContain(8);
  });

  it("keeps a long chain down to a few points per bucket", () => {
    const samples = Array.from({ length: 100_000 }, (_, i) => sample(i + 1, Math.sin(i) * 1000, Math.cos(i)));
    const kept = selectSamples(samples, DOWNSAMPLE);
    expect(kept.length).toBeLessThanOrEqual(6 * DOWNSAMPLE.buckets);
    expect(kept[0]).toBe(1);
    expect(kept.at(-1)).toBe(100_000);
  });
});
