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

/**
 * What a chain's first floor pass (its `collapse_point`) was, read from its statuses: the
 * guard's save, a collapse, or a floor that no boundary has answered yet. The header, the
 * charts and their legend say it in these words so one page never calls a save a collapse.
 */
export type FloorPoint = "guarded" | "collapsed" | "unanswered";

export function floorPointOf(statuses: readonly string[]): FloorPoint {
  if (statuses.includes("guarded")) return "guarded";
  if (statuses.includes("collapsed")) return "collapsed";
  return "unanswered";
}

export const FLOOR_POINT_WORDS: Record<FloorPoint, { at: string; after: string; mark: string; meaning: string }> = {
  guarded: {
    at: "guarded at",
    after: "",
    mark: "guarded",
    meaning: "the guard's save: a floor reached here, answered by a boundary, and nothing went past it",
  },
  collapsed: {
    at: "collapsed at",
    after: "",
    mark: "collapse",
    meaning: "the first floor reached, and content went past a floor after it",
  },
  unanswered: {
    at: "floor reached at",
    after: "no boundary yet",
    mark: "floor reached",
    meaning: "the first floor reached, no boundary has answered it yet",
  },
};
