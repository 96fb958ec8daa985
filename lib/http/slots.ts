// Admission by counting, for work that holds something while it runs (an event stream's
// connection, an OTLP export's decode and store): a limit for the whole process and one per
// caller, so that one key or session cannot take every place. A place is checked and taken in
// one synchronous step, with no await in between, so requests that arrive together cannot all
// pass a check made before any of them counted.
import type { Principal } from "../auth/access";

export interface SlotLimits {
  /** Places in the whole process. */
  global: number;
  /** Places one caller may hold at once. */
  perCaller: number;
}

/** A place taken; `release()` gives it back (once, however often it is called). */
export interface Slot {
  release(): void;
}

/** Which limit refused: the process's or the caller's own. */
export type SlotRefusal = "global" | "caller";

export class SlotCounter {
  #total = 0;
  readonly #byCaller = new Map<string, number>();

  /** Takes a place for `caller` (null: nobody to tell apart, only the global limit applies). */
  take(caller: string | null, limits: SlotLimits): Slot | SlotRefusal {
    if (this.#total >= limits.global) return "global";
    const held = caller === null ? 0 : (this.#byCaller.get(caller) ?? 0);
    if (caller !== null && held >= limits.perCaller) return "caller";
    this.#total++;
    if (caller !== null) this.#byCaller.set(caller, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#total--;
        if (caller === null) return;
        const left = (this.#byCaller.get(caller) ?? 1) - 1;
        if (left > 0) this.#byCaller.set(caller, left);
        else this.#byCaller.delete(caller);
      },
    };
  }

  /** Places held, in all or by one caller. */
  inUse(caller?: string | null): number {
    return caller === undefined || caller === null ? this.#total : (this.#byCaller.get(caller) ?? 0);
  }
}

/**
 * Whom a limit per caller counts: each API key, each operator session, the shared token.
 * Anonymous requests (access control off) have no one to tell apart: only the global limit.
 */
export function callerOf(principal: Principal): string | null {
  switch (principal.kind) {
    case "key":
      return `key:${principal.id}`;
    case "operator":
      return `session:${principal.sessionId}`;
    case "token":
      return `token:${principal.name}`;
    default:
      return null;
  }
}
