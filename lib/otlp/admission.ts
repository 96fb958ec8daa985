// How many OTLP exports are decoded and stored at once. An export can carry thousands of
// receipts; past this many in flight the server answers 429 with Retry-After, which every
// OTLP exporter honours by retrying later, instead of queueing work it cannot finish soon.
export const MAX_EXPORTS_IN_FLIGHT = 4;
export const RETRY_AFTER_SECONDS = 1;

let inFlight = 0;

/** Runs `work` if a slot is free; null (run nothing) when the server is at capacity. */
export async function withExportSlot<T>(work: () => Promise<T>, limit = MAX_EXPORTS_IN_FLIGHT): Promise<T | null> {
  if (inFlight >= limit) return null;
  inFlight++;
  try {
    return await work();
  } finally {
    inFlight--;
  }
}
