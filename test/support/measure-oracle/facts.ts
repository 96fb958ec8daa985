// What a fact is once extracted, whatever its format, and how a fact is looked up in what a
// later pass (or a cached original) still states.

/** A specific fact counts fully; context (keywords, JSON keys) only this much of one. */
export const CONTEXT_WEIGHT = 0.2;
/** An error line is worth two facts of its own, beyond the facts it contains. */
export const ERROR_LINE_WEIGHT = 2;

export interface Fact {
  /** A token kind, or `error_line`, `json_leaf`, `json_key`. */
  kind: string;
  weight: number;
  /** Counted in `facts` and listed when lost; false for context (keywords, JSON keys). */
  specific: boolean;
  /** As the source states it, for lost examples. */
  display: string;
  /** Keys an index must hold, all of them, for text to state the fact. */
  need: string[];
  /** For JSON facts: keys of which one suffices when the content is JSON too. */
  pathNeed: string[] | null;
}

/** What a piece of content states: the keys of its tokens (and, for JSON, its leaves). */
export interface FactIndex {
  keys: Set<string>;
  json: boolean;
}

/** The source's facts by identity, in the order the source first states them. */
export class FactSet {
  readonly byId = new Map<string, Fact>();

  /** Adds a fact, or raises the weight of the one with the same identity to the larger of the two. */
  add(fact: Fact): void {
    const id = `${fact.kind === "error_line" ? "L" : fact.pathNeed ? "J" : "T"}\u0001${(fact.pathNeed ?? fact.need).join("\u0001")}`;
    const known = this.byId.get(id);
    if (!known) this.byId.set(id, fact);
    else if (fact.weight > known.weight) known.weight = fact.weight;
  }

  get facts(): Fact[] {
    return [...this.byId.values()];
  }
}

export function states(index: FactIndex, fact: Fact): boolean {
  if (index.json && fact.pathNeed) {
    for (const key of fact.pathNeed) if (index.keys.has(key)) return true;
    return false;
  }
  if (fact.need.length === 0) return false;
  for (const key of fact.need) if (!index.keys.has(key)) return false;
  return true;
}
