import { describe, expect, it } from "vitest";
import { classifyMovement, summariseWhatIf, type ReplayedChain } from "@/lib/chains/what-if";

describe("classifyMovement", () => {
  it("names every way a collapse point can move", () => {
    expect(classifyMovement(null, 3)).toBe("newly_collapsing");
    expect(classifyMovement(5, 3)).toBe("earlier");
    expect(classifyMovement(3, 5)).toBe("later");
    expect(classifyMovement(3, null)).toBe("no_longer_collapsing");
    expect(classifyMovement(3, 3)).toBe("unchanged_collapsed");
    expect(classifyMovement(null, null)).toBe("unchanged_healthy");
  });
});

describe("summariseWhatIf", () => {
  const chain = (id: string, current: number | null, candidate: number | null, passCount = 10): ReplayedChain => ({
    chain_id: id,
    pass_count: passCount,
    current:
      current === null ? null : { pass_id: `${id}.${current}`, pass_number: current, verdict: "COLLAPSE_IMMINENT" },
    candidate:
      candidate === null
        ? null
        : { pass_id: `${id}.${candidate}`, pass_number: candidate, verdict: "COLLAPSE_IMMINENT", directive: "HALT" },
  });

  it("counts every chain and lists the biggest moves first, up to the limit", () => {
    const result = summariseWhatIf(
      [chain("a", 9, 8), chain("b", 9, 2), chain("c", 9, 5), chain("d", null, 4), chain("e", null, null)],
      2,
    );
    expect(result.total).toBe(5);
    expect(result.counts).toEqual({
      newly_collapsing: 1,
      earlier: 3,
      later: 0,
      no_longer_collapsing: 0,
      unchanged_collapsed: 0,
      unchanged_healthy: 1,
    });
    expect(result.chains.earlier.map((c) => c.chain_id)).toEqual(["b", "c"]);
    expect(result.chains.newly_collapsing[0]?.movement).toBe("newly_collapsing");
  });
});
