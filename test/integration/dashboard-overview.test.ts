// The overview's figures, collapse rates and latest collapses over time ranges.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../support/database";
import { getFirstActivity, getOverviewFigures, listCollapseRates, listRecentCollapses } from "@/db/queries/overview";
import { ingestPasses } from "@/db/ingest/passes";
import { ingestBoundaries } from "@/db/ingest/boundaries";
import { countChains } from "@/db/queries/chains";
import { chooseStride, OVERVIEW_FIGURE_STATUS, pivotCollapseRates, rangeStart } from "@/lib/chains/overview";
import type { PassReceipt } from "@/lib/schemas/passes";

setUpTestDatabase();

const NOW = new Date();
const HOUR = 3_600_000;

/** A chain of `sizes` passes starting `hoursAgo`, one pass a minute, under the default floor of 256 bytes. */
function chain(
  id: string,
  contentClass: string,
  hoursAgo: number,
  sizes: number[],
  extra: Partial<PassReceipt>[] = [],
): PassReceipt[] {
  return sizes.map((size, i) => ({
    chain_id: id,
    pass_id: `${id}.${i + 1}`,
    pass_number: i + 1,
    input_content_hash: null,
    current_content_hash: `${id}:${i + 1}`,
    current_size_bytes: size,
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9,
    content_class: contentClass,
    created_at: new Date(NOW.getTime() - hoursAgo * HOUR + i * 60_000).toISOString(),
    metadata: null,
    verdict: null,
    manifest_digest: null,
    ...extra[i],
  }));
}

describe("overview", () => {
  it("counts figures over a time range", async () => {
    await ingestPasses([
      // 2 hours ago: falls under the floor at pass 3 (size) and goes on (collapsed), one client mismatch.
      ...chain("recent-collapse", "summary", 2, [1000, 900, 100, 50], [{}, { verdict: "COLLAPSE_IMMINENT" }]),
      // A schema-invalid last pass, no boundary yet: a floor reached, neither saved nor collapsed.
      ...chain("recent-breach", "api-json", 3, [1000, 900, 800], [{}, {}, { schema_valid: false }]),
      // Under the floor at pass 3, where the agent halts (the boundary below): guarded.
      ...chain("recent-saved", "summary", 4, [1000, 900, 100]),
      ...chain("recent-healthy", "api-json", 5, [1000, 900, 800]),
      // An hour ago: filler that claims density 0.9; measured against its source, it breaches the floor.
      ...chain(
        "recent-void",
        "measured",
        1,
        [1000, 900],
        [
          { input_content: "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB and fixes #4412." },
          { content: "The document discusses various topics." },
        ],
      ),
      // 3 days ago: under the floor at pass 2, and on.
      ...chain("older-collapse", "summary", 72, [1000, 100, 90]),
      // 40 days ago: healthy, and a missing pass (integrity finding).
      ...chain("ancient", "summary", 960, [1000, 900]).map((r, i) => (i === 1 ? { ...r, pass_number: 3 } : r)),
    ]);
    await ingestBoundaries([{ chain_id: "recent-saved", pass_number: 3, strategy: "halt", reason: "HALT" }]);

    const day = await getOverviewFigures(rangeStart("24h", NOW, null));
    // Chains count as active when a receipt was created or received in the range: the
    // back-dated chains were all received just now.
    // Every chain figure counts chains; recent-collapse and older-collapse went on after their
    // HALT; recent-saved halted at its floor (a save, not a collapse).
    const expected = {
      chains: 7,
      chains_collapsed: 2,
      chains_guarded: 1,
      chains_floor_breached: 1,
      chains_client_mismatch: 1,
      chains_broken_integrity: 3,
      chains_continued_after_halt: 2,
      chains_restore_not_honoured: 0,
      chains_measurement_mismatch: 1,
    };
    expect(day).toEqual({ ...expected, passes: 15 });
    const week = await getOverviewFigures(rangeStart("7d", NOW, null));
    expect(week).toMatchObject({ passes: 18, chains_collapsed: 2, chains_guarded: 1 });
    const all = await getOverviewFigures(null);
    expect(all).toEqual({ ...expected, passes: 20 });

    // Each figure opens the chains list filtered to exactly what it counts: same number, same unit.
    for (const range of ["24h", "7d", "all"] as const) {
      const figures = await getOverviewFigures(range === "all" ? null : rangeStart(range, new Date(), null));
      for (const [key, status] of Object.entries(OVERVIEW_FIGURE_STATUS)) {
        const listed = await countChains({ status: status ? [status] : undefined, range });
        expect(listed, `${key} over ${range}`).toEqual({ count: figures[key as keyof typeof figures], capped: false });
      }
    }
    expect((await getFirstActivity())!.getTime()).toBe(NOW.getTime() - 960 * HOUR);
  });

  it("lists the latest collapse points, failures first and newest first, one per chain, saves left out", async () => {
    const recent = await listRecentCollapses(null);
    expect(recent.map((c) => [c.outcome, c.chain_id, c.pass_number, c.verdict])).toEqual([
      ["collapsed", "recent-collapse", 3, "COLLAPSE_IMMINENT"],
      ["collapsed", "older-collapse", 2, "COLLAPSE_IMMINENT"],
      ["unanswered", "recent-breach", 3, "FLOOR_BREACH_DETECTED"],
    ]);
    expect((await listRecentCollapses(rangeStart("24h", NOW, null))).map((c) => c.chain_id)).toEqual([
      "recent-collapse",
      "recent-breach",
    ]);
  });

  it("gives the collapse rate per class of the chains started in each bucket", async () => {
    const origin = rangeStart("7d", NOW, null)!;
    const stride = chooseStride(7 * 86_400);
    expect(stride).toBe(6 * 3_600);
    const rows = await listCollapseRates(origin, stride);
    // Collapsed: went past a floor. recent-breach reached one and recent-saved was saved at one:
    // started, not collapsed.
    expect(rows.map((r) => [r.content_class, r.started, r.collapsed])).toEqual([
      ["summary", 1, 1],
      ["api-json", 2, 0],
      ["measured", 1, 0],
      ["summary", 2, 1],
    ]);
    const { classes, points } = pivotCollapseRates(rows, origin, NOW, stride);
    expect(classes).toEqual(["summary", "api-json", "measured"]);
    expect(points).toHaveLength(28);
    const last = points.at(-1)!;
    expect(last.rate).toEqual({ "api-json": 0, summary: 0.5, measured: 0 });
    expect(points.filter((p) => p.rate.summary !== null)).toHaveLength(2);
  });

  it("keeps failures at the top of the latest collapse points however many saves come after them", async () => {
    // Twelve agents that each halt at their floor, every floor newer than any failure's.
    for (let i = 0; i < 12; i++) {
      await ingestPasses(chain(`saved-${i}`, "summary", 0.5, [1000, 900, 100]));
      await ingestBoundaries([
        {
          chain_id: `saved-${i}`,
          pass_number: 3,
          strategy: "restore",
          reason: "HALT",
          restore_pass_id: `saved-${i}.2`,
        },
      ]);
    }
    const recent = await listRecentCollapses(rangeStart("7d", NOW, null), 10);
    expect(recent.map((c) => c.chain_id)).toEqual(["recent-collapse", "older-collapse", "recent-breach"]);
    const figures = await getOverviewFigures(rangeStart("24h", NOW, null));
    expect(figures).toMatchObject({ chains_collapsed: 2, chains_guarded: 13 });
    expect(await countChains({ status: ["guarded"], range: "24h" })).toEqual({ count: 13, capped: false });
  });
});
