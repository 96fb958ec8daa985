// Which live originals leave the store when it is over its byte budget.

export interface EvictionCandidate {
  hash: string;
  /** Bytes the entry holds against the budget (original plus compressed text). */
  bytes: number;
  /** Last retrieval, or the store time for an entry never retrieved. */
  recencyAt: Date;
}

/**
 * Least recently retrieved first. Ties (the same millisecond) break on the hash so that two
 * writers evicting at once agree on the victims instead of each taking a different one.
 */
export function compareEvictionOrder(a: EvictionCandidate, b: EvictionCandidate): number {
  const byRecency = a.recencyAt.getTime() - b.recencyAt.getTime();
  if (byRecency !== 0) return byRecency;
  return a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0;
}

/** Bytes that must go before the store is back within budget (0 when it already is). */
export function bytesOverBudget(liveBytes: number, maxBytes: number): number {
  return Math.max(0, liveBytes - maxBytes);
}

/**
 * Takes candidates in eviction order until at least `bytesToFree` are freed: the fewest
 * least-recent entries that bring the store back within budget.
 */
export function planEviction(
  candidates: readonly EvictionCandidate[],
  bytesToFree: number,
): { victims: EvictionCandidate[]; freedBytes: number } {
  const victims: EvictionCandidate[] = [];
  let freedBytes = 0;
  if (bytesToFree <= 0) return { victims, freedBytes };
  for (const candidate of [...candidates].sort(compareEvictionOrder)) {
    victims.push(candidate);
    freedBytes += candidate.bytes;
    if (freedBytes >= bytesToFree) break;
  }
  return { victims, freedBytes };
}
