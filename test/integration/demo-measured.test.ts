// The demo's numbers are measured, not typed: its chains hold what the compressors made and
// the measurement found, and the chain whose agent claims high density is caught by the
// server measuring its content.
import { describe, expect, it } from "vitest";
import { getChain, listChains } from "@/db/queries/chains";
import { INCIDENT_REPORT } from "@/demo/incident-report";
import { summarise } from "@/lib/compressors/summarise";
import { sha256Hex } from "@/lib/guard/hash";
import { measure } from "@/lib/measure/index";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

describe("the demo's measured chains", () => {
  it("stores for demo-semantic-void the hashes, sizes and densities of the summaries themselves", async () => {
    const made: [string, number, number][] = [];
    let text = INCIDENT_REPORT;
    for (let n = 1; n <= 5; n++) {
      text = summarise(text, 0.75);
      const density = measure(text, { source: INCIDENT_REPORT, format: "text" }).semantic_density_score;
      made.push([sha256Hex(text), Buffer.byteLength(text, "utf8"), density]);
    }
    const chain = await getChain("demo-semantic-void");
    expect(chain?.passes.map((p) => [p.current_content_hash, p.current_size_bytes, p.semantic_density_score])).toEqual(
      made,
    );
    expect(chain?.collapse_point).toMatchObject({ pass_number: 4, verdict: "COLLAPSE_IMMINENT" });
  });

  it("catches demo-claimed-density by measuring the content its agent sent", async () => {
    const chain = await getChain("demo-claimed-density");
    const passes = chain?.passes ?? [];
    expect(passes.map((p) => p.semantic_density_score)).toEqual([0.92, 0.92, 0.92, 0.92]);
    // On its claims every pass is safe; measured against the report it started from, not.
    expect(passes.map((p) => p.verdict)).toEqual([
      "NO_RECURSIVE_COMPRESSION",
      "SAFE_TO_COMPRESS",
      "SAFE_TO_COMPRESS",
      "SAFE_TO_COMPRESS",
    ]);
    expect(passes.map((p) => p.checked_verdict)).toEqual([
      "NO_RECURSIVE_COMPRESSION",
      "SAFE_TO_COMPRESS",
      "COLLAPSE_IMMINENT",
      "COLLAPSE_IMMINENT",
    ]);
    const measured = passes.map((p) => p.server_checks?.semantic_density_score ?? 1);
    expect(measured[2]).toBeLessThan(0.45);
    expect(passes[2]?.server_checks?.measurement_mismatch).toBe(true);
    const flagged = await listChains({
      status: ["measurement_mismatch"],
      sort: "last_activity",
      order: "desc",
      limit: 50,
    });
    // demo-content-check's server verdict differs from its claims too (a required field is missing).
    expect(
      flagged.items
        .map((c) => c.chain_id)
        .filter((id) => !id.startsWith("sr-"))
        .sort(),
    ).toEqual(["demo-claimed-density", "demo-content-check"]);
  });
});
