// A bound on how many calls hold the database's connections at once, and on how long a
// call may wait for one (postgres.js and PGlite would otherwise queue it for ever).
import { DatabaseBusyError, DatabaseStuckError } from "./errors";

export type Acquire = () => Promise<() => void>;

/** How long a call may take once it holds a slot, and what to do when it takes longer. */
export interface Deadline {
  ms: number;
  onExpired: () => void;
}

/**
 * At most `size` holders at once; a waiter that gets no slot within `timeoutMs` fails with
 * DatabaseBusyError instead of queueing for ever behind a stuck pool.
 */
export function gate(size: number, timeoutMs: number): Acquire {
  let free = size;
  const waiting: Array<() => void> = [];
  const grantNext = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  // Each grant frees its slot once, however often it is released (a deadline, then the
  // abandoned call settling late).
  const slot = () => {
    let held = true;
    return () => {
      if (held) {
        held = false;
        grantNext();
      }
    };
  };
  return async function acquire(): Promise<() => void> {
    if (free > 0) {
      free--;
      return slot();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(slot());
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(grant), 1);
        reject(new DatabaseBusyError(timeoutMs));
      }, timeoutMs);
      waiting.push(grant);
    });
  };
}

/** Runs `run` holding a slot; past the deadline the call fails with DatabaseStuckError. */
export async function holding<T>(acquire: Acquire, run: () => PromiseLike<T>, deadline?: Deadline): Promise<T> {
  const release = await acquire();
  if (!deadline) {
    try {
      return await run();
    } finally {
      release();
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.onExpired();
      reject(new DatabaseStuckError(deadline.ms));
    }, deadline.ms);
  });
  try {
    return await Promise.race([run(), expired]);
  } finally {
    clearTimeout(timer);
    release();
  }
}
