// When a failed delivery is tried again. Exponential with jitter (so receivers coming back
// from an outage are not hit by every instance at the same second), capped at an hour, and
// never given up before RETRY_WINDOW_MS after the event: the last attempt is placed at the
// window's end if the schedule would otherwise step past it.

export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const FIRST_RETRY_MS = 10_000;
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Each delay is scaled by a factor in [1 - JITTER, 1 + JITTER). */
const JITTER = 0.2;

/** The delay before attempt `attempt + 1`, after `attempt` attempts have failed (attempt >= 1). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const base = Math.min(FIRST_RETRY_MS * 2 ** exponent, MAX_RETRY_DELAY_MS);
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * The time of the next attempt after a failure, or null when the retry window is over.
 * `createdAt` is when the event was recorded; `now` is when the failed attempt ended.
 */
export function nextAttemptAt(
  attempt: number,
  createdAt: Date,
  now: Date,
  random: () => number = Math.random,
): Date | null {
  const deadline = createdAt.getTime() + RETRY_WINDOW_MS;
  if (now.getTime() >= deadline) return null;
  const next = now.getTime() + retryDelayMs(attempt, random);
  return new Date(Math.min(next, deadline));
}
