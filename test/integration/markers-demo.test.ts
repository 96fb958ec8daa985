// The demo's nested marker (demo/nested-marker.ts), as docs/markers.md's worked example tells it:
// the first pass's marker names an original whose own marker (another store's) leads nowhere; the
// later passes nest whole (their inner markers' originals are held), and the last pass goes to a
// sub-agent without a retrieve tool. No other demo chain has a marker finding.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { col, queryRows } from "@/db/sql";
import { getChain, listChains } from "@/db/queries/chains";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

describe("demo-nested-marker", () => {
  it("has a nested marker, then markers sent without the retrieve tool", async () => {
    const chain = await getChain("demo-nested-marker");
    const passes = chain?.passes ?? [];
    expect(passes.map((p) => p.context_tools)).toEqual([null, null, ["read_file", "run_tests"]]);
    const findings = (chain?.integrity ?? []).filter((f) => f.hash !== undefined);
    // Only the first pass's original carries a marker this store cannot resolve.
    expect(findings.map((f) => [f.kind, f.pass_number])).toEqual([
      ["marker_nested", 1],
      ["marker_without_tool", 3],
    ]);
    expect(findings[0]?.detail).toContain("leads nowhere");
    const withFindings = await queryRows(
      await getDb(),
      sql`select distinct chain_id from marker_findings order by chain_id`,
      { chain_id: col.text },
    );
    expect(withFindings.map((r) => r.chain_id)).toEqual(["demo-nested-marker"]);
    const summary = await queryRows(
      await getDb(),
      sql`select marker_finding_count from chains where chain_id = 'demo-nested-marker'`,
      { marker_finding_count: col.int },
    );
    expect(summary).toEqual([{ marker_finding_count: 2 }]);
    // The chains list's marker filter, by kind.
    const listed = async (...kinds: ("marker_nested" | "marker_without_tool" | "marker_unknown")[]) =>
      (await listChains({ marker_kind: kinds, sort: "attention", order: "desc", limit: 50 })).items.map(
        (c) => c.chain_id,
      );
    expect(await listed("marker_nested")).toEqual(["demo-nested-marker"]);
    expect(await listed("marker_without_tool")).toEqual(["demo-nested-marker"]);
    expect(await listed("marker_unknown")).toEqual([]);
  });
});
