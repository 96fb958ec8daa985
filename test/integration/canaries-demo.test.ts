// The demo's opaque compactor (demo/canaries.ts), as docs/canaries.md's worked example tells it:
// no content, only the agent's checks, and the canary line and findings they give.
import { describe, expect, it } from "vitest";
import { getCanarySeries } from "@/db/queries/canaries";
import { getChain } from "@/db/queries/chains";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

describe("demo-opaque-canaries", () => {
  it("reports what the opaque compactor kept, pass by pass, from the agent's checks alone", async () => {
    const chain = await getChain("demo-opaque-canaries");
    const passes = chain?.passes ?? [];
    expect(passes.map((p) => [p.pass_number, p.canaries?.length ?? 0, p.canary_retention])).toEqual([
      [1, 4, 0.75],
      [2, 0, 0.25],
      [3, 0, 0],
    ]);
    expect(passes.every((p) => p.server_checks === null)).toBe(true);
    const planted = passes[0]?.canaries ?? [];
    const kindOf = (detail: string) => planted.find((c) => detail.includes(c.id))?.kind;
    const lost = (chain?.integrity ?? []).filter((f) => f.kind === "canary_lost");
    expect(lost.map((f) => [f.pass_number, kindOf(f.detail)])).toEqual([
      [1, "error"],
      [2, "path"],
      [2, "hash"],
      [3, "number"],
    ]);
    expect((await getCanarySeries("demo-opaque-canaries")).map((p) => p.retention)).toEqual([0.75, 0.25, 0]);
  });
});
