// The demo's nested marker (demo/nested-marker.ts), as docs/markers.md's worked example tells it:
// each later pass's marker names an original that carries a marker of its own, and the last pass
// goes to a sub-agent without a retrieve tool. No other demo chain has a marker finding.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { col, queryRows } from "@/db/sql";
import { getChain } from "@/db/queries/chains";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

describe("demo-nested-marker", () => {
  it("has a nested marker, then markers sent without the retrieve tool", async () => {
    const chain = await getChain("demo-nested-marker");
    const passes = chain?.passes ?? [];
    expect(passes.map((p) => p.context_tools)).toEqual([null, null, ["read_file", "run_tests"]]);
    const findings = (chain?.integrity ?? []).filter((f) => f.hash !== undefined);
    // Each pass from the second on compressed content that carried a marker, and cached it.
    expect(findings.map((f) => [f.kind, f.pass_number])).toEqual([
      ["marker_nested", 2],
      ["marker_nested", 3],
      ["marker_without_tool", 3],
    ]);
    expect(findings[0]?.detail).toContain("is itself compressed content with a marker");
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
    expect(summary).toEqual([{ marker_finding_count: 3 }]);
  });
});
