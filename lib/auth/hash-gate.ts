// Password hashing is deliberately expensive (scrypt: ~128 MiB and a few hundred ms each) and
// runs on libuv's small thread pool, which DNS lookups and file reads share. Unbounded, a
// spray of sign-ins would take every thread and the memory with it. Every hash of the
// process waits here for one of a few slots, in three lines: names that signed in lately
// first, then the normal one, then the slow one (addresses that have failed many sign-ins).
// A full line refuses at once.
import { processSingleton } from "../process-singleton";

export type Lane = "first" | "normal" | "slow";

/** Thrown when the lane's line is full: the caller answers 503 with Retry-After. */
export class HashGateBusy extends Error {
  constructor() {
    super("too many password checks are waiting");
    this.name = "HashGateBusy";
  }
}

export class HashGate {
  private running = 0;
  private readonly waiting: Record<Lane, Array<() => void>> = { first: [], normal: [], slow: [] };
  /** Hashes finished, for tests: how many ran before one in particular. */
  completed = 0;

  constructor(
    readonly slots: number,
    readonly maxWaiting: number,
  ) {}

  /** Runs `work` once a slot is free; throws HashGateBusy when the lane's line is full. */
  async run<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots) {
      if (this.waiting[lane].length >= this.maxWaiting) throw new HashGateBusy();
      await new Promise<void>((resolve) => this.waiting[lane].push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      this.completed++;
      // The slot passes straight to the next in line (in lane order), or is freed.
      const next = this.waiting.first.shift() ?? this.waiting.normal.shift() ?? this.waiting.slow.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** How many are waiting in each lane (for tests and metrics). */
  queued(): Record<Lane, number> {
    return { first: this.waiting.first.length, normal: this.waiting.normal.length, slow: this.waiting.slow.length };
  }
}

// One slot: a hash at a time keeps three of libuv's four threads for everything else and
// the memory to one hash's worth; sign-ins are rare enough that a short line is no cost.
const SLOTS = 1;
const MAX_WAITING = 256;

/** The process's one gate: every scrypt of this process goes through it. */
export function hashGate(): HashGate {
  return processSingleton("hash-gate", () => new HashGate(SLOTS, MAX_WAITING));
}
