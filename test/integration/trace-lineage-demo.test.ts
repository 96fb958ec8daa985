// The demo's lineage (demo/lineage.ts), sent through the TypeScript SDK at seed time: its
// successor walked into both kinds of wall, with the first context's receipts beside them.
import { describe, expect, it } from "vitest";
import { getTrace } from "@/db/queries/traces";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

describe("the demo's lineage", () => {
  it("shows a successor that hit its predecessor's wall and contradicted its axiom", async () => {
    const successor = await getTrace("demo-trace-export-after-compaction");
    expect(successor?.parent_trace_id).toBe("demo-trace-export-first-context");
    expect(successor?.findings.map((f) => [f.kind, f.node_id, f.ancestor_trace_id, f.ancestor_receipt])).toEqual([
      [
        "axiom_contradicted",
        "s3",
        "demo-trace-export-first-context",
        "curl -v: connection reset at 30.0 s; proxy.conf idle_timeout=30s",
      ],
      [
        "wall_reexplored",
        "s2",
        "demo-trace-export-first-context",
        "pool=64: export still cut at 30.0 s (run 118, exit 1)",
      ],
    ]);
  });
});
