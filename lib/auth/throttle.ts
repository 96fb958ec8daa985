// How guessing is slowed, as rules; db/queries/access.ts keeps the counts (one row per
// bucket, counted and read back in one statement) and app/_access/gate.ts applies them.
//
// - A name tried from one address: a few attempts per window, then refused until the window
//   ends. The pair, not the name alone, so no one can lock an operator out from elsewhere.
// - An address that has failed many sign-ins (a spray of names) is not refused: its
//   attempts wait for the password hash behind everyone else's (`HashGate`'s slow lane), so
//   an admin's attempt from another address goes first.
// - Every password hash waits for the process's one hash slot: the global ceiling, which
//   slows everyone under a spray but refuses only when the line itself is full.
// - Failed API keys from one address: refused for the rest of a short window past a limit.

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Sign-in attempts (right or wrong) one name gets from one address per window. */
export const SIGN_IN_PAIR_LIMIT = 5;
/** Failed sign-ins from one address per window past which its attempts take the slow lane. */
export const SIGN_IN_ADDRESS_SUSPECT = 10;
export const BEARER_WINDOW_MS = 60_000;
/** Failed API-key attempts one address gets per window before every bearer attempt is refused. */
export const BEARER_FAILURE_LIMIT = 30;

/** The throttle buckets: JSON, so no name or address can be read as another bucket. */
export const buckets = {
  signInPair: (name: string, address: string) => JSON.stringify(["sign-in", name.trim().toLowerCase(), address]),
  signInAddress: (address: string) => JSON.stringify(["sign-in-address", address]),
  bearerAddress: (address: string) => JSON.stringify(["bearer-address", address]),
};

/** Whole seconds until a window that started at `windowStart` ends (at least 1). */
export function secondsLeft(windowStart: Date, windowMs: number, now: Date): number {
  return Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now.getTime()) / 1000));
}
