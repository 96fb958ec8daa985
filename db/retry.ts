// Deadlock and serialisation failures roll the whole transaction back, so running it again
// from the start is safe and usually succeeds.
const RETRYABLE_CODES = new Set(["40P01", "40001"]);

function retryable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (RETRYABLE_CODES.has((e as { code?: string }).code ?? "")) return true;
  }
  return false;
}

/**
 * Runs a whole transaction again (up to `attempts` times, with a short random pause) when the
 * database aborted it for a deadlock or a serialisation failure; the last failure is thrown
 * (and answered 503 with Retry-After).
 */
export async function retryTransient<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || !retryable(error)) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 50 * attempt));
    }
  }
}
