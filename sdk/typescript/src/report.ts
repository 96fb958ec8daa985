// What the client says about delivery, and in which words: a refusal with the server's reason,
// a server that cannot be reached, a full queue, and at close what was not delivered and to
// where. The Python SDK (floorline/report.py) writes the same lines.
import { FloorlineError } from "./http";

export type ItemKind = "pass" | "boundary" | "original" | "trace";

export interface Item {
  kind: ItemKind;
  body: Record<string, unknown>;
}

/** What became of everything recorded, as close() answers it. */
export interface DeliveryReport {
  /** Stored by the server (or already stored: resends are idempotent). */
  delivered: number;
  /** Refused by the server (a 4xx other than 429, or a 500); never sent again. */
  refused: number;
  /** Dropped, oldest first, because the queue was full. */
  dropped: number;
  /** Not delivered by the end of close's wait (the server unreachable or busy), or recorded after close. */
  undelivered: number;
  /** Nothing refused, dropped or undelivered. */
  ok: boolean;
}

export function report(counts: Omit<DeliveryReport, "ok">): DeliveryReport {
  return { ...counts, ok: counts.refused + counts.dropped + counts.undelivered === 0 };
}

/** What close({ throwOnLoss: true }) throws when anything was not delivered. */
export class ReceiptsLostError extends FloorlineError {
  constructor(
    readonly report: DeliveryReport,
    where: string,
  ) {
    super(0, "receipts_lost", lossLine(report, where, null).replace(/^floorline: /, ""));
    this.name = "ReceiptsLostError";
  }
}

const NOUNS: Record<ItemKind, [string, string]> = {
  pass: ["pass receipt", "pass receipts"],
  boundary: ["boundary receipt", "boundary receipts"],
  original: ["cached original", "cached originals"],
  trace: ["trace", "traces"],
};

export function count(n: number, kind: ItemKind): string {
  const [one, many] = NOUNS[kind];
  return `${n} ${n === 1 ? one : many}`;
}

const MAX_ISSUES_SHOWN = 3;

export function refusalLine(where: string, error: FloorlineError, items: readonly Item[]): string {
  const kind = items[0]?.kind ?? "pass";
  const shown = error.issues.slice(0, MAX_ISSUES_SHOWN).map((i) => `${i.path}: ${i.message}`);
  if (error.issues.length > MAX_ISSUES_SHOWN) shown.push(`and ${error.issues.length - MAX_ISSUES_SHOWN} more`);
  const issues = shown.length > 0 ? ` [${shown.join("; ")}]` : "";
  return `floorline: ${where} refused ${count(items.length, kind)} (${error.status} ${error.code}): ${error.message}${issues}`;
}

/** `problem` is a network error's message, which names the server: "cannot reach <url> (<why>)". */
export function unreachableLine(problem: string, waiting: number): string {
  return `floorline: ${problem}; retrying, ${waiting} items waiting`;
}

export function reachedLine(where: string): string {
  return `floorline: ${where} answers again`;
}

export function fullLine(maxQueueSize: number): string {
  return `floorline: the queue is full (${maxQueueSize} items); dropping the oldest until the server catches up`;
}

export function lossLine(r: DeliveryReport, where: string, problem: string | null): string {
  const total = r.delivered + r.refused + r.dropped + r.undelivered;
  const why = problem && r.undelivered > 0 ? ` (last problem: ${problem})` : "";
  return `floorline: ${r.delivered} of ${total} items delivered to ${where}; ${r.refused} refused, ${r.dropped} dropped, ${r.undelivered} undelivered${why}`;
}

/** Refusals printed one line each, up to this many; beyond it they are counted (close() answers them). */
const MAX_REFUSAL_LINES = 10;

/**
 * The onError used when the agent gives none: each refusal printed with its reason, up to a
 * bound, so a rerun that collides on every receipt does not flood the terminal.
 */
export function defaultOnError(
  where: string,
  warn: (line: string) => void,
): (error: FloorlineError, items: Item[]) => void {
  let printed = 0;
  return (error, items) => {
    // Undelivered at close: the summary close() prints says it, with the server's address.
    if (error.code === "undelivered") return;
    printed++;
    if (printed <= MAX_REFUSAL_LINES) {
      warn(
        error.code === "closed"
          ? `floorline: ${count(items.length, items[0]?.kind ?? "pass")} recorded after close(); not sent`
          : refusalLine(where, error, items),
      );
    } else if (printed === MAX_REFUSAL_LINES + 1) {
      warn("floorline: more refusals are counted, not printed; close() answers the counts");
    }
  };
}
