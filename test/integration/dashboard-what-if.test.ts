// The what-if replay in the database agrees with replaying the same passes through
// lib/guard/guard.ts in memory, for stricter and looser candidates, and writes nothing.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../support/database";
import { getChain, listChains } from "@/db/queries/chains";
import { getPolicy, listPolicyVersions } from "@/db/queries/policies";
import { replayClass } from "@/db/queries/what-if";
import { COLLAPSE_VERDICTS, evaluatePass, type CompressionPolicy } from "@/lib/guard/guard";
import { summariseWhatIf } from "@/lib/chains/what-if";

setUpTestDatabase({ from: "demo" });

async function replayInMemory(contentClass: string, floor: CompressionPolicy): Promise<Map<string, number | null>> {
  const { items } = await listChains({ sort: "last_activity", order: "desc", limit: 500, content_class: contentClass });
  const out = new Map<string, number | null>();
  for (const summary of items) {
    const chain = (await getChain(summary.chain_id))!;
    const hit = chain.passes.find(
      (p) => p.content_class === contentClass && COLLAPSE_VERDICTS.has(evaluatePass(p, floor).verdict),
    );
    out.set(summary.chain_id, hit?.pass_number ?? null);
  }
  return out;
}

describe("what-if replay", () => {
  it("finds the same collapse points as the guard, under the floor in force and under candidates", async () => {
    for (const contentClass of ["summary", "api-json", "base64-blob"]) {
      const current = await getPolicy(contentClass);
      const candidates: CompressionPolicy[] = [
        current,
        { ...current, min_semantic_density: Math.min(1, current.min_semantic_density + 0.2) },
        { ...current, min_size_bytes: current.min_size_bytes * 8 },
        { ...current, min_size_bytes: 0, min_semantic_density: 0 },
        { ...current, max_pass_number: 3 },
      ];
      for (const candidate of candidates) {
        const replayed = await replayClass(contentClass, current, candidate);
        const expected = await replayInMemory(contentClass, candidate);
        expect(
          new Map(replayed.map((c) => [c.chain_id, c.candidate?.pass_number ?? null])),
          `${contentClass} ${JSON.stringify(candidate)}`,
        ).toEqual(expected);
        for (const c of replayed) if (c.candidate) expect(COLLAPSE_VERDICTS.has(c.candidate.verdict)).toBe(true);
      }
    }
  });

  it("reports which chains move with a stricter density floor, and writes nothing", async () => {
    const current = await getPolicy("summary");
    const versionsBefore = await listPolicyVersions("summary");
    const before = await getChain("demo-broken-receipts");
    const result = summariseWhatIf(
      await replayClass("summary", current, { ...current, min_semantic_density: 0.62 }),
      10,
    );
    // demo-claimed-density claims 0.92 throughout: on its claims no floor under that moves it.
    expect(result.total).toBe(3);
    expect(result.counts).toEqual({
      newly_collapsing: 1,
      earlier: 1,
      later: 0,
      no_longer_collapsing: 0,
      unchanged_collapsed: 0,
      unchanged_healthy: 1,
    });
    expect(
      result.chains.newly_collapsing.map((c) => [c.chain_id, c.candidate?.pass_number, c.candidate?.directive]),
    ).toEqual([["demo-broken-receipts", 4, expect.stringMatching(/^HALT: Density 0\.\d\d < 0\.62\.$/)]]);
    expect(result.chains.earlier.map((c) => [c.chain_id, c.current?.pass_number, c.candidate?.pass_number])).toEqual([
      ["demo-semantic-void", 4, 2],
    ]);

    const looser = summariseWhatIf(
      await replayClass("summary", current, { ...current, min_semantic_density: 0.1, min_size_bytes: 0 }),
      10,
    );
    expect(looser.counts.no_longer_collapsing).toBe(1);

    expect(await listPolicyVersions("summary")).toEqual(versionsBefore);
    expect(await getChain("demo-broken-receipts")).toEqual(before);
  });
});
