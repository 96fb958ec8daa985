import { describe, expect, it } from "vitest";
import { buildChainSeries, type SeriesRow } from "@/lib/chains/series";
import { PASS_FLAG } from "@/lib/chains/downsample";

const row = (n: number, over: Partial<SeriesRow> = {}): SeriesRow => ({
  pass_id: `p${n}`,
  pass_number: n,
  size: 10_000,
  density: 0.9,
  verdict: "SAFE_TO_COMPRESS",
  directive: `PROCEED: Pass ${n} safe for further compression.`,
  client_verdict: null,
  client_mismatch: false,
  checked_mismatch: false,
  checked_verdict: null,
  measured_density: null,
  measurement_mismatch: false,
  effective_verdict: "SAFE_TO_COMPRESS",
  unmeasured: false,
  content_class: "c",
  policy_version: 1,
  floor_size: 1_000,
  floor_density: 0.5,
  max_pass: 10,
  flags: 0,
  input_content_hash: `h${n - 1}`,
  current_content_hash: `h${n}`,
  prev_pass_id: null,
  prev_pass_number: null,
  prev_hash: null,
  ...over,
});

describe("buildChainSeries", () => {
  it("splits the floor into one span per policy version", () => {
    const series = buildChainSeries(
      [
        row(1),
        row(2),
        row(3, { policy_version: 2, floor_size: 2_000, flags: PASS_FLAG.policyChange }),
        row(4, { policy_version: 2 }),
      ],
      4,
      false,
    );
    expect(series.floors.map((f) => [f.policy_version, f.from, f.to, f.min_size_bytes])).toEqual([
      [1, 1, 2, 1_000],
      [2, 3, 4, 2_000],
    ]);
    expect(series.downsampled).toBe(false);
  });

  it("reports crossings with their direction, and mismatches", () => {
    const series = buildChainSeries(
      [
        row(1),
        row(2, {
          size: 500,
          flags: PASS_FLAG.sizeCrossing,
          verdict: "COLLAPSE_IMMINENT",
          client_mismatch: true,
          client_verdict: "SAFE_TO_COMPRESS",
        }),
        row(3, {
          density: 0.4,
          size: 2_000,
          flags: PASS_FLAG.sizeCrossing | PASS_FLAG.densityCrossing,
          checked_mismatch: true,
          checked_verdict: "FLOOR_BREACH_DETECTED",
        }),
      ],
      10,
      false,
    );
    expect(series.crossings).toEqual([
      { pass_id: "p2", pass_number: 2, metric: "size", direction: "below" },
      { pass_id: "p3", pass_number: 3, metric: "size", direction: "above" },
      { pass_id: "p3", pass_number: 3, metric: "density", direction: "below" },
    ]);
    expect(series.mismatches).toEqual([
      {
        kind: "client",
        pass_id: "p2",
        pass_number: 2,
        client_verdict: "SAFE_TO_COMPRESS",
        verdict: "COLLAPSE_IMMINENT",
        checked_verdict: null,
      },
      {
        kind: "checked",
        pass_id: "p3",
        pass_number: 3,
        client_verdict: null,
        verdict: "SAFE_TO_COMPRESS",
        checked_verdict: "FLOOR_BREACH_DETECTED",
      },
    ]);
    expect(series.downsampled).toBe(true);
  });

  it("words integrity findings as lib/chains/integrity.ts does, from the pass before", () => {
    const series = buildChainSeries(
      [
        row(1),
        row(5, { flags: PASS_FLAG.integrity, prev_pass_id: "p2", prev_pass_number: 2, prev_hash: "h2" }),
        row(6, {
          flags: PASS_FLAG.integrity,
          input_content_hash: "other",
          prev_pass_id: "p5",
          prev_pass_number: 5,
          prev_hash: "h5",
        }),
      ],
      5,
      false,
    );
    expect(series.findings.map((f) => [f.kind, f.pass_number, f.detail])).toEqual([
      ["missing_pass", 5, "Passes 3-4 were never received (before pass 5)."],
      ["hash_mismatch", 6, 'Input hash "other" does not match the output hash "h5" of pass 5 (p5).'],
    ]);
    expect(series.points.map((p) => p.integrity)).toEqual([null, "missing_pass", "hash_mismatch"]);
  });
});
