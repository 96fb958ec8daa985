// The rule that tells the guard's saves from failures (lib/chains/outcome.ts), case by case as
// docs/ingest.md#chain-statuses states it. The SQL that keeps it on every chain's summary is
// held to this rule in test/integration/chain-summary-fold.test.ts.
import { describe, expect, it } from "vitest";
import { chainOutcomeOf, FLOOR_POINT_WORDS, floorPointOf } from "@/lib/chains/outcome";
import type { Verdict } from "@/lib/guard/guard";

const S: Verdict = "SAFE_TO_COMPRESS";
const B: Verdict = "FLOOR_BREACH_DETECTED";
const I: Verdict = "COLLAPSE_IMMINENT";
const passes = (...verdicts: Verdict[]) => verdicts.map((v, i) => ({ pass_number: i + 1, effective_verdict: v }));
const at = (...numbers: number[]) => numbers.map((pass_number) => ({ pass_number }));

describe("saves and failures", () => {
  it("a floor answered by a boundary at its pass, nothing after: guarded, whatever the strategy", () => {
    expect(chainOutcomeOf(passes(S, S, I), at(3), [])).toBe("guarded");
    expect(chainOutcomeOf(passes(S, S, B), at(3), [])).toBe("guarded");
  });

  it("a restore honoured, or an accept_loss followed by more passes: still guarded", () => {
    // The pass after the restore started from the restored content (no finding): a save.
    expect(chainOutcomeOf(passes(S, B, S), at(2), [])).toBe("guarded");
    // accept_loss at 2, then a pass 3 that breaches again and is the last: nothing went past it.
    expect(chainOutcomeOf(passes(S, B, B), at(2), [])).toBe("guarded");
  });

  it("a pass after a halt, a restore not honoured: collapsed, though a boundary answered the floor", () => {
    expect(chainOutcomeOf(passes(S, I, S), at(2), [{ kind: "continued_after_halt" }])).toBe("collapsed");
    expect(chainOutcomeOf(passes(S, B, S), at(2), [{ kind: "restore_not_honoured" }])).toBe("collapsed");
    // Even with no floor reached: a voluntary halt, then on anyway.
    expect(chainOutcomeOf(passes(S, S, S), at(2), [{ kind: "continued_after_halt" }])).toBe("collapsed");
  });

  it("a pass after a floor that no boundary answers: collapsed", () => {
    expect(chainOutcomeOf(passes(S, I, S), [], [])).toBe("collapsed");
    // A later floor left unanswered undoes an earlier save.
    expect(chainOutcomeOf(passes(S, B, I, S), at(2), [])).toBe("collapsed");
  });

  it("a floor at the last pass with no boundary yet, or no floor at all: neither", () => {
    expect(chainOutcomeOf(passes(S, S, I), [], [])).toBeNull();
    expect(chainOutcomeOf(passes(S, S, S), [], [])).toBeNull();
    // A boundary where no floor was reached saves nothing.
    expect(chainOutcomeOf(passes(S, S, S), at(3), [])).toBeNull();
    // Other findings are not disobedience.
    expect(chainOutcomeOf(passes(S, S, S), [], [{ kind: "hash_mismatch" }])).toBeNull();
  });
});

describe("floorPointOf", () => {
  it("names a guarded chain's floor pass a save, never a collapse", () => {
    // A guarded chain keeps its floor verdict among its statuses: the save wins.
    expect(floorPointOf(["guarded", "floor_breached"])).toBe("guarded");
    expect(FLOOR_POINT_WORDS[floorPointOf(["guarded", "floor_breached"])].mark).not.toMatch(/collapse/);
    expect(floorPointOf(["collapsed", "floor_breached", "continued_after_halt"])).toBe("collapsed");
    expect(floorPointOf(["collapse_imminent"])).toBe("unanswered");
  });
});
