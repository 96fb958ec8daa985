// The demo's restore that brings facts back (demo/facts.ts, docs/facts.md): made through the
// SDK with content, so its passes are measured and folded into the chain's facts ledger.
import { describe, expect, it } from "vitest";
import { getFactLedger, getFactSeries, listChainFacts } from "@/db/queries/chain-facts";
import { getChain } from "@/db/queries/chains";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

const CHAIN = "demo-facts-restored";

describe(CHAIN, () => {
  it("brings back at the pass after a restore what the breach lost, and names the original of what it drops later", async () => {
    const chain = await getChain(CHAIN);
    const restore = chain?.boundaries.find((b) => b.strategy === "restore");
    expect(restore?.pass_number).toBe(2);
    expect(chain?.passes.map((p) => p.pass_number)).toEqual([1, 2, 3, 4]);

    const ledger = await getFactLedger(CHAIN);
    expect(ledger?.passes_folded).toBe(4);
    expect(ledger?.counts.restored).toBeGreaterThan(0);
    expect(ledger?.counts.recoverable).toBeGreaterThan(0);
    // Restored: lost at the breach, stated again by the pass from the restored text, and still.
    const restored = await listChainFacts(CHAIN, { fate: "restored", limit: 500 });
    for (const f of restored.items) expect(f).toMatchObject({ first_lost_pass: 2, restored_at_pass: 3 });
    // What pass 4 dropped, the original its marker names (its input, pass 3's output) states.
    const input = chain?.passes[3]?.input_content_hash ?? "";
    const recoverable = await listChainFacts(CHAIN, { fate: "recoverable", limit: 500 });
    for (const f of recoverable.items) {
      expect(input.startsWith(f.recoverable_from ?? "-")).toBe(true);
      expect(f.first_lost_pass).toBeLessThanOrEqual(4);
    }
    // The facts line dips at the breach and rises again after the restore.
    const surviving = (await getFactSeries(CHAIN)).map((p) => p.surviving);
    expect(surviving[1]).toBeLessThan(surviving[0] ?? 0);
    expect(surviving[2]).toBeGreaterThan(surviving[1] ?? 1);
  });
});
