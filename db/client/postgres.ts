// The PostgreSQL client (postgres.js): a gated, self-replacing pool on the primary, and one
// on the read replica when DATABASE_READ_URL is set.
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import { DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, type DatabaseConfig } from "../config";
import { migratePostgres } from "../migrations";
import { type Acquire, type Deadline, gate, holding } from "../pool-gate";
import * as schema from "../schema";
import type { Connection, Db } from "../types";

/**
 * postgres.js queues a query for ever when every connection is busy. Drizzle reaches the
 * client only through `unsafe` (lazy queries, optionally `.values()`) and `begin`; both wait
 * for a slot of the same size as the pool, boundedly. Queries inside a transaction use the
 * transaction's own client and are not gated again.
 *
 * A call that outlives its deadline (longer than the server's statement timeout allows) has
 * a stuck connection: postgres.js 3.4.9 can lose a buffered write when the server drops the
 * connection (porsager/postgres#1208), after which that connection never sends again. The
 * call then fails with 503 and `onExpired` replaces the whole client.
 */
function gatePostgres<C extends object>(
  current: () => C,
  acquire: Acquire,
  deadlines: { query: Deadline; transaction: Deadline },
): C {
  return new Proxy(current(), {
    get(_target, key) {
      const target = current();
      const value = Reflect.get(target, key, target);
      if (key === "begin") {
        return (...args: unknown[]) =>
          holding(
            acquire,
            async () => {
              // postgres.js 3.4.9 keeps what a transaction returned reachable from its
              // connection until that connection's next transaction (`begin` races the result
              // with a promise it leaves in `connection.onclose`): up to a 5,000-row ingest
              // result per pooled connection. The result goes out beside `begin`, which
              // itself resolves to nothing.
              const fn = args.at(-1) as (tx: unknown) => unknown;
              let result: unknown;
              const run = async (tx: unknown) => {
                const x = fn(tx);
                result = await (Array.isArray(x) ? Promise.all(x) : x);
              };
              await (value as (...a: unknown[]) => Promise<unknown>).apply(target, [...args.slice(0, -1), run]);
              return result;
            },
            deadlines.transaction,
          );
      }
      if (key !== "unsafe") return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) => {
        let values = false;
        let result: Promise<unknown> | undefined;
        const run = () =>
          (result ??= holding(
            acquire,
            () => {
              const pending = (
                value as (...a: unknown[]) => { values(): PromiseLike<unknown> } & PromiseLike<unknown>
              ).apply(target, args);
              return values ? pending.values() : pending;
            },
            deadlines.query,
          ));
        const lazy = {
          values() {
            values = true;
            return lazy;
          },
          // biome-ignore lint/suspicious/noThenProperty: a lazy query is a thenable, as in postgres.js
          then: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => run().then(ok, fail),
          catch: (fail?: (e: unknown) => unknown) => run().catch(fail),
          finally: (done?: () => void) => run().finally(done),
        };
        return lazy;
      };
    },
  });
}

export async function openPostgres(config: DatabaseConfig & { url: string }): Promise<Connection> {
  await migratePostgres(config.url);
  const acquireTimeoutMs = config.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  const statementTimeoutMs = config.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const max = 10;
  // One gated, self-replacing pool per server: the primary, and the read replica if any.
  // application_name tells the two apart on the server (pg_stat_activity).
  const pool = (url: string, applicationName: string) => {
    const connect = () => {
      const c = postgres(url, {
        max,
        onnotice: () => {},
        connect_timeout: Math.ceil(acquireTimeoutMs / 1000),
        connection: { statement_timeout: statementTimeoutMs, application_name: applicationName },
      });
      // Drizzle sets its type parsers on the client it is given; a replacement needs them too.
      drizzle({ client: c });
      return c;
    };
    let client = connect();
    let replacedAt = 0;
    const replace = () => {
      // Several calls on the stuck client expire together: one replacement serves them all.
      if (Date.now() - replacedAt < 1_000) return;
      replacedAt = Date.now();
      const stuck = client;
      client = connect();
      // Calls still running on the old client get the statement timeout to finish.
      void stuck.end({ timeout: Math.ceil(statementTimeoutMs / 1000) }).catch(() => {});
    };
    // Past these, no server-side bound explains the wait: the connection is stuck.
    const grace = acquireTimeoutMs + 5_000;
    const gated = gatePostgres(() => client, gate(max, acquireTimeoutMs), {
      query: { ms: statementTimeoutMs + grace, onExpired: replace },
      transaction: { ms: 4 * statementTimeoutMs + grace, onExpired: replace },
    });
    return {
      db: drizzle({ client: gated, schema }) as unknown as Db,
      close: () => client.end({ timeout: 5 }),
      // On the client of the moment: a replaced client loses it, and the streams' safety poll covers that.
      listen: async (channel: string, onPayload: (payload: string) => void) =>
        (await client.listen(channel, onPayload)).unlisten,
    };
  };
  const primary = pool(config.url, "floorline");
  const replica = config.readUrl ? pool(config.readUrl, "floorline-read") : null;
  return {
    db: primary.db,
    readDb: replica?.db ?? primary.db,
    driver: "postgres",
    close: async () => {
      await Promise.all([primary.close(), replica?.close()]);
    },
    listen: primary.listen,
  };
}
