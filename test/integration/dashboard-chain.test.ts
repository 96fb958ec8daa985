// The chain page's queries against a real database: the downsampled series keeps what the
// specification in lib/chains/downsample.ts keeps, and the passes table pages through every pass.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../support/database";
import { ingestBoundaries } from "@/db/ingest/boundaries";
import { getChain } from "@/db/queries/chains";
import { getChainSeries } from "@/db/queries/chain-series";
import { listChainBoundaries } from "@/db/queries/boundaries";
import { listChainPasses } from "@/db/queries/passes";
import { ingestPasses } from "@/db/ingest/passes";
import { updatePolicy } from "@/db/queries/policies";
import { DOWNSAMPLE, PASS_FLAG, passFlags, type FlagInput } from "@/lib/chains/downsample";
import { integrityContext } from "@/lib/chains/integrity";
import { selectSamples } from "../support/downsample-oracle";
import type { PassReceipt } from "@/lib/schemas/passes";

setUpTestDatabase({ from: "demo" });

const BIG = "big-chain";
const BIG_PASSES = 6_000;

function bigChain(from: number, to: number): PassReceipt[] {
  const receipts: PassReceipt[] = [];
  for (let n = from; n <= to; n++) {
    // A slow decay with noise, a dip under the size floor around 2,000 and under the density floor around 4,500.
    const size = Math.round(50_000 - n * 5 + ((n * 7919) % 997)) - (n > 2_000 && n < 2_010 ? 45_000 : 0);
    const density = n > 4_500 && n < 4_503 ? 0.2 : 0.6 + ((n * 104729) % 300) / 1000;
    receipts.push({
      chain_id: BIG,
      pass_id: `big.${n}`,
      pass_number: n,
      input_content_hash: n === 3_000 ? "elsewhere" : `h${n - 1}`,
      current_content_hash: `h${n}`,
      current_size_bytes: Math.max(size, 0),
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: density,
      content_class: "big-class",
      created_at: null,
      metadata: null,
      verdict: n === 1_234 ? "FLOOR_BREACH_DETECTED" : null,
      manifest_digest: null,
    });
  }
  return receipts;
}

describe("chain page queries", () => {
  it("draws every pass of a small chain, with its floor, findings and mismatches", async () => {
    const series = await getChainSeries("demo-schema-truncation", await listChainBoundaries("demo-schema-truncation"));
    expect(series.total_passes).toBe(6);
    expect(series.downsampled).toBe(false);
    expect(series.points.map((p) => p.pass_number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(series.floors).toEqual([
      {
        content_class: "api-json",
        policy_version: 1,
        from: 1,
        to: 6,
        min_size_bytes: 2048,
        min_semantic_density: 0.5,
        max_pass_number: 6,
      },
    ]);
    // Pass 6 was recorded by a worker whose client had not read the class's floor yet.
    expect(series.mismatches.map((m) => m.pass_number)).toEqual([6]);
    expect(series.points[4]?.verdict).toBe("FLOOR_BREACH_DETECTED");

    const broken = await getChain("demo-broken-receipts");
    const brokenSeries = await getChainSeries("demo-broken-receipts", []);
    expect(brokenSeries.findings).toEqual(broken!.integrity);
    expect(brokenSeries.findings.map((f) => f.kind)).toEqual(["missing_pass", "hash_mismatch"]);

    const void_ = await getChainSeries("demo-semantic-void", []);
    expect(void_.crossings).toEqual([
      { pass_id: "demo-semantic-void.p4", pass_number: 4, metric: "density", direction: "below" },
    ]);
  });

  it("downsamples a long chain in the database exactly as the specification does", async () => {
    await updatePolicy("big-class", {
      min_size_bytes: 10_000,
      min_semantic_density: 0.5,
      max_pass_number: 100_000,
      required_fields: [],
    });
    await ingestPasses(bigChain(1, 3_000));
    // A stricter floor half-way: the floor drawn for the second half is the new version's.
    await updatePolicy("big-class", {
      min_size_bytes: 12_000,
      min_semantic_density: 0.5,
      max_pass_number: 100_000,
      required_fields: [],
    });
    await ingestPasses(bigChain(3_001, BIG_PASSES));
    await ingestBoundaries([{ chain_id: BIG, pass_number: 2_001, strategy: "halt", reason: "size fell off a cliff" }]);

    const boundaryList = await listChainBoundaries(BIG);
    const series = await getChainSeries(BIG, boundaryList);
    expect(series.total_passes).toBe(BIG_PASSES);
    expect(series.downsampled).toBe(true);
    expect(series.points.length).toBeLessThan(6 * DOWNSAMPLE.buckets + 100);

    // The specification, run on every pass loaded in full.
    const full = (await getChain(BIG))!.passes;
    // The halt boundary at 2,001: the pass after it continued after the halt (an integrity finding).
    const context = integrityContext(full, boundaryList, full);
    expect(context.halt_at).toBe(2_001);
    const floors = new Map([
      [1, { size: 10_000, density: 0.5 }],
      [2, { size: 12_000, density: 0.5 }],
    ]);
    let prev: FlagInput | null = null;
    const samples = full.map((p, i) => {
      const input: FlagInput = {
        ...p,
        floor_size: floors.get(p.policy_version)!.size,
        floor_density: floors.get(p.policy_version)!.density,
      };
      const flags = passFlags(prev, input, {
        isLast: i === full.length - 1,
        isBoundary: p.pass_number === 2_001,
        context,
      });
      prev = input;
      return { key: i, passNumber: p.pass_number, values: [p.current_size_bytes, p.semantic_density_score], flags };
    });
    const expected = selectSamples(samples, DOWNSAMPLE).map((i) => full[i]?.pass_id);
    expect(series.points.map((p) => p.pass_id)).toEqual(expected);

    const kept = new Set(series.points.map((p) => p.pass_number));
    const collapse = full.find((p) => p.verdict === "COLLAPSE_IMMINENT" || p.verdict === "FLOOR_BREACH_DETECTED")!;
    expect(kept.has(collapse.pass_number)).toBe(true);
    expect(kept.has(2_001)).toBe(true);
    for (const n of [2_001, 2_010, 4_501, 4_503]) expect(kept.has(n)).toBe(true);
    expect(series.crossings.filter((c) => c.metric === "density").map((c) => [c.pass_number, c.direction])).toEqual([
      [4_501, "below"],
      [4_503, "above"],
    ]);
    expect(series.floors.map((f) => [f.policy_version, f.from, f.min_size_bytes])).toEqual([
      [1, 1, 10_000],
      [2, 3_001, 12_000],
    ]);
    expect(series.mismatches.map((m) => m.pass_number)).toEqual([1_234]);
    expect(series.findings.map((f) => [f.kind, f.pass_number])).toEqual([
      ["continued_after_halt", 2_002],
      ["hash_mismatch", 3_000],
    ]);
    expect(samples.filter((s) => s.flags & PASS_FLAG.integrity).map((s) => s.passNumber)).toEqual([2_002, 3_000]);
  });

  it("pages through every pass forwards and backwards by keyset, and jumps to a pass", async () => {
    const all = (await getChain(BIG))!.passes.map((p) => p.pass_id);
    const forward: string[] = [];
    let page = await listChainPasses(BIG, { start: true }, 500, []);
    expect(page.prev).toBeNull();
    for (;;) {
      forward.push(...page.rows.map((r) => r.pass_id));
      if (!page.next) break;
      page = await listChainPasses(BIG, { after: page.next }, 500, []);
    }
    expect(forward).toEqual(all);

    const backward: string[] = [];
    for (;;) {
      backward.unshift(...page.rows.map((r) => r.pass_id));
      if (!page.prev) break;
      page = await listChainPasses(BIG, { before: page.prev }, 500, []);
    }
    expect(backward).toEqual(all);

    const jump = await listChainPasses(BIG, { from: 3_000 }, 10, []);
    expect(jump.rows[0]?.pass_id).toBe("big.3000");
    expect(jump.rows[0]?.integrity?.kind).toBe("hash_mismatch");
    expect(jump.prev).not.toBeNull();
    expect(jump.next).not.toBeNull();
  });
});
