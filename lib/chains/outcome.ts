// Saves and failures, from a chain's receipts alone: the plain statement of the rule that the
// summary rows keep in SQL (db/queries/chain-summary.ts keeps the facts it needs,
// db/schema/chains.ts `chainOutcome` reads them). Tests hold the two equal.
import { COLLAPSE_VERDICTS, type Verdict } from "../guard/guard";
import type { IntegrityKind } from "./integrity";

/**
 * `collapsed`: content went past a floor: a pass after a halt, a restore not honoured, or a
 * pass numbered above a floor pass (its effective verdict FLOOR_BREACH_DETECTED or
 * COLLAPSE_IMMINENT) that no boundary at its pass number answers. `guarded`: not collapsed,
 * and a boundary answers one of its floor passes. Null: neither (a chain that never reached a
 * floor, or whose last pass reached one that no boundary answered yet).
 */
export function chainOutcomeOf(
  passes: readonly { pass_number: number; effective_verdict: Verdict }[],
  boundaries: readonly { pass_number: number }[],
  findings: readonly { kind: IntegrityKind }[],
): "collapsed" | "guarded" | null {
  const answered = new Set(boundaries.map((b) => b.pass_number));
  const last = passes.reduce((n, p) => Math.max(n, p.pass_number), Number.NEGATIVE_INFINITY);
  const floors = passes.filter((p) => COLLAPSE_VERDICTS.has(p.effective_verdict));
  const disobeyed = findings.some((f) => f.kind === "continued_after_halt" || f.kind === "restore_not_honoured");
  if (disobeyed || floors.some((p) => !answered.has(p.pass_number) && p.pass_number < last)) return "collapsed";
  return floors.some((p) => answered.has(p.pass_number)) ? "guarded" : null;
}
