// The one keyset pager of every list (chains, originals, traces, rejections, a chain's
// passes). A list has an order and a unique sort key per row; a page is read from a key
// onwards, never by offset, so pages neither skip nor repeat rows while rows arrive.
//
// `after` reads the page that follows a key, `before` the page that precedes one (paging
// back). `next` and `prev` are the keys to pass on, null at either end. The side that the
// extra row of the read cannot tell is, per list, not offered ("none"), assumed from the
// cursor that led here ("assume"), or checked with a one-row read ("check").
import "server-only";
import { and, type AnyColumn, eq, lt, or, sql, type SQL } from "drizzle-orm";

export interface KeysetPage<T, K> {
  items: T[];
  next: K | null;
  prev: K | null;
}

export interface KeysetRead<T, K> {
  limit: number;
  after?: K;
  before?: K;
  keyOf: (row: T) => K;
  /**
   * At most `limit` rows strictly beyond `from` (all rows when undefined), nearest first:
   * in list order when `forward`, in reverse list order otherwise.
   */
  read: (from: K | undefined, forward: boolean, limit: number) => Promise<T[]>;
  neighbours: "none" | "assume" | "check";
  /** Paging back onto the first page shows it whole, as it looks when reached from the start. */
  restartWhenShort?: boolean;
}

export async function keysetPage<T, K>(o: KeysetRead<T, K>): Promise<KeysetPage<T, K>> {
  const backwards = o.before !== undefined && o.after === undefined;
  const rows = await o.read(backwards ? o.before : o.after, !backwards, o.limit + 1);
  const more = rows.length > o.limit;
  if (backwards && !more && o.restartWhenShort) return keysetPage({ ...o, before: undefined });
  const items = rows.slice(0, o.limit);
  if (backwards) items.reverse();
  const first = items[0];
  const last = items.at(-1);
  if (first === undefined || last === undefined) return { items, next: null, prev: null };

  // The side the read itself does not reveal: behind the cursor that led to this page.
  const beyond = async (row: T, forward: boolean): Promise<K | null> => {
    const key = o.keyOf(row);
    if (o.neighbours === "none") return null;
    if (o.neighbours === "assume") return key;
    return (await o.read(key, forward, 1)).length > 0 ? key : null;
  };
  if (backwards) return { items, prev: more ? o.keyOf(first) : null, next: await beyond(last, true) };
  return {
    items,
    next: more ? o.keyOf(last) : null,
    prev: o.after === undefined ? null : await beyond(first, false),
  };
}

/**
 * The comparison and order for reading beyond a key: `later` rows in list order are greater
 * for an ascending list, smaller for a descending one.
 */
export function keysetDirection(descending: boolean, forward: boolean): { op: SQL; asc: boolean } {
  const ascending = descending !== forward;
  return { op: sql.raw(ascending ? ">" : "<"), asc: ascending };
}

/** The key of a list read newest first: a row's creation time (ISO) and its id. */
export type CreatedKey = readonly [string, string];

/**
 * One page of a list read newest first by (created_at, id), the order of the small admin
 * lists (keys, webhooks). `read` returns at most `limit` rows, newest first, older than the
 * key when one is given; `olderThan` builds that condition.
 */
export async function newestFirstPage<T extends { createdAt: Date; id: string }>(
  query: { limit: number; after?: CreatedKey },
  read: (
    olderThan: (columns: { createdAt: AnyColumn; id: AnyColumn }) => SQL | undefined,
    limit: number,
  ) => Promise<T[]>,
): Promise<{ items: T[]; next: [string, string] | null }> {
  const page = await keysetPage<T, CreatedKey>({
    limit: query.limit,
    after: query.after,
    keyOf: (row) => [row.createdAt.toISOString(), row.id],
    neighbours: "none",
    read: (from, _forward, limit) =>
      read((c) => {
        if (from === undefined) return undefined;
        const at = new Date(from[0]);
        // Through the columns' own mapping (a Date as the driver takes it), not a raw parameter.
        return or(lt(c.createdAt, at), and(eq(c.createdAt, at), lt(c.id, from[1])));
      }, limit),
  });
  return { items: page.items, next: page.next ? [page.next[0], page.next[1]] : null };
}
