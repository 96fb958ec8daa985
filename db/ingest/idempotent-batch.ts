// One idempotent-batch mechanism for every ingest path (passes, boundaries, and later OTLP
// and traces). The contract:
//
// - Every item has a natural key (`key`) and a digest of its body (`bodyDigest`, canonical
//   JSON): the same item re-sent has the same digest.
// - A key repeated inside the batch must repeat the same body; otherwise `conflict(index)`
//   of the later item is thrown before anything is written.
// - The first item of each key is inserted with `on conflict do nothing` (the caller's
//   `insert`, inside the caller's transaction, after it has taken whatever locks it needs).
// - Keys that were already stored are read back (`readStored`). A stored body with another
//   digest throws `conflict(index)` of the first item with that key: the whole batch fails
//   with 409 and, as the caller's transaction rolls back, writes nothing. A stored body with
//   the same digest answers with the stored result and writes nothing (a retry never
//   duplicates, and says what was decided the first time).
// - The answer has one result per item, in the order sent, and how many rows were created.
import "server-only";
import { ApiError } from "@/lib/errors";
import { bodyDigest } from "@/lib/guard/canonical";

/** The first item of one key, with its position in the batch. */
export interface BatchEntry<T> {
  index: number;
  item: T;
  key: string;
  digest: string;
}

export interface IdempotentBatch<T, R> {
  key: (item: T) => string;
  conflict: (index: number, item: T) => ApiError;
  /** Inserts the entries, skipping keys already stored; a result for each key it inserted. */
  insert: (entries: readonly BatchEntry<T>[]) => Promise<Map<string, R>>;
  /** The stored digest and result of each of these keys (all of which are stored). */
  readStored: (entries: readonly BatchEntry<T>[]) => Promise<Map<string, { digest: string; result: R }>>;
}

/** The first entry of each key, in batch order; throws on a key repeated with another body. */
export function uniqueEntries<T>(
  items: readonly T[],
  key: (item: T) => string,
  conflict: (index: number, item: T) => ApiError,
  /** bodyDigest, or a faster function that gives the same digest. */
  digest: (item: T) => string = bodyDigest,
): BatchEntry<T>[] {
  const byKey = new Map<string, BatchEntry<T>>();
  items.forEach((item, index) => {
    const entry = { index, item, key: key(item), digest: digest(item) };
    const seen = byKey.get(entry.key);
    if (!seen) byKey.set(entry.key, entry);
    else if (seen.digest !== entry.digest) throw conflict(index, item);
  });
  return [...byKey.values()];
}

/** Stores a batch all or nothing under the contract above; call it inside the transaction. */
export async function storeIdempotentBatch<T, R>(
  items: readonly T[],
  spec: IdempotentBatch<T, R>,
  entries: readonly BatchEntry<T>[] = uniqueEntries(items, spec.key, spec.conflict),
): Promise<{ results: R[]; created: number }> {
  return answerIdempotentBatch(items, spec, entries, await spec.insert(entries));
}

/**
 * The second half of storeIdempotentBatch, for a caller that inserted the entries itself (and
 * needs more from that insert than a result per key): `inserted` holds a result for each key
 * the insert stored; the others are read back and checked against their digests.
 */
export async function answerIdempotentBatch<T, R>(
  items: readonly T[],
  spec: Omit<IdempotentBatch<T, R>, "insert">,
  entries: readonly BatchEntry<T>[],
  inserted: ReadonlyMap<string, R>,
): Promise<{ results: R[]; created: number }> {
  const results = new Map(inserted);
  const created = results.size;
  const retried = entries.filter((e) => !results.has(e.key));
  if (retried.length > 0) {
    const stored = await spec.readStored(retried);
    for (const entry of retried) {
      const row = stored.get(entry.key);
      // Present unless deleted between the insert and this read, which nothing does.
      if (!row || row.digest !== entry.digest) throw spec.conflict(entry.index, entry.item);
      results.set(entry.key, row.result);
    }
  }
  return {
    results: items.map((item) => {
      const result = results.get(spec.key(item));
      if (result === undefined) throw new Error("idempotent batch: an item has no result");
      return result;
    }),
    created,
  };
}

/** The 409 of a key reused with another body, worded the same for every ingest path. */
export function idempotencyConflict(what: string, path: string, keyText: string, stored: string): ApiError {
  return new ApiError("idempotency_conflict", `${what} reuses ${keyText} with a different body.`, {
    issues: [{ path, message: `${stored} was already stored with different content` }],
  });
}
