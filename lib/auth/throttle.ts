// How guessing is slowed, as rules; db/queries/access.ts keeps the counts (one row per
// bucket, counted and read back in one statement) and app/_access/gate.ts applies them.
//
// - A name tried from one address: a few attempts per window, then refused until the window
//   ends. The pair, not the name alone, so no one can lock an operator out from elsewhere.
// - An address that has failed many sign-ins (a spray of names) is not refused: its
//   attempts wait for the password hash behind everyone else's (`HashGate`'s slow lane), so
//   an admin's attempt from another address goes first.
// - Every password hash waits for the process's one hash slot: the global ceiling, which
//   slows everyone under a spray but refuses only when the line itself is full. A name that
//   signed in lately waits in the first line, ahead of everyone else's.
// - Past a rate of failed sign-ins on the whole server, a name that does not exist is refused
//   without a hash: a spray of made-up names from many addresses costs nothing, and cannot
//   queue ahead of a real operator.
// - Failed API keys from one address: refused for the rest of a short window past a limit.

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Sign-in attempts (right or wrong) one name gets from one address per window. */
export const SIGN_IN_PAIR_LIMIT = 5;
/** Failed sign-ins from one address per window past which its attempts take the slow lane. */
export const SIGN_IN_ADDRESS_SUSPECT = 10;
/** A name that signed in within this long is hashed in the first line. */
export const RECENT_SIGN_IN_MS = 30 * 24 * 3_600_000;
export const SIGN_IN_FAILURE_WINDOW_MS = 60_000;
/** Failed sign-ins on the whole server per window past which unknown names get no hash. */
export const SIGN_IN_FAILURE_RATE = 20;
export const BEARER_WINDOW_MS = 60_000;
/** Failed API-key attempts one address gets per window before every bearer attempt is refused. */
export const BEARER_FAILURE_LIMIT = 30;

/** The throttle buckets: JSON, so no name or address can be read as another bucket. */
export const buckets = {
  signInPair: (name: string, address: string) => JSON.stringify(["sign-in", name.trim().toLowerCase(), address]),
  signInAddress: (address: string) => JSON.stringify(["sign-in-address", address]),
  signInFailures: () => JSON.stringify(["sign-in-failures"]),
  bearerAddress: (address: string) => JSON.stringify(["bearer-address", address]),
};

/** Whole seconds until a window that started at `windowStart` ends (at least 1). */
export function secondsLeft(windowStart: Date, windowMs: number, now: Date): number {
  return Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now.getTime()) / 1000));
}
