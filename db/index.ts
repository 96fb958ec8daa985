// The one place that opens a database connection. PGlite (embedded Postgres) when
// DATABASE_URL is unset, postgres.js against a real server when it is set; one schema and
// one migrations folder serve both.
import path from "node:path";
import { mkdirSync } from "node:fs";
import type { SQL } from "drizzle-orm";
import { acquireDataLock } from "./data-lock";
import { shutdownSignal } from "./lifecycle";
import { FollowUp } from "./follow-up";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything queries can run on: the database itself or an open transaction. */
export type Executor = Db | Tx;

interface Handle {
  db: Db;
  /**
   * The summariser's runs on this database (db/ingest/summaries.ts): the pass ingest asks for
   * one after each commit; reads through getReadDb() wait for those asked before them.
   */
  summaries: FollowUp;
  /** Where pages, lists and exports read: the replica of DATABASE_READ_URL, else `db`. */
  readDb: Db;
  driver: "pglite" | "postgres";
  close: () => Promise<void>;
  /**
   * LISTEN on a channel. On PostgreSQL it hears every instance; the embedded database serves
   * one process, and PGlite delivers a NOTIFY to that process's listeners at commit.
   */
  listen?: (channel: string, onPayload: (payload: string) => void) => Promise<() => Promise<void>>;
}

export interface DatabaseConfig {
  /** postgres:// URL; when absent the embedded database is used. */
  url?: string;
  /** A read replica of `url` for dashboard reads (DATABASE_READ_URL); only with `url`. */
  readUrl?: string;
  /** Embedded data folder, or `memory://` for a throw-away database. */
  dataDir?: string;
  /** Longest a statement may run (PostgreSQL only: PGlite cannot interrupt a running statement). */
  statementTimeoutMs?: number;
  /** Longest a query waits for a free connection (and, on PostgreSQL, to connect). */
  acquireTimeoutMs?: number;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/**
 * Under a steady stream of ingests, the chain summaries are folded at most this often (a lone
 * ingest is folded at once, and a read of the same process never waits for the interval).
 * - PostgreSQL folds in its own processes, beside the app's: short enough that little is
 *   left to fold when a stream stops (with 1 s, the last run held up to four 5,000-receipt
 *   batches: bench:ingest 0.43-0.49 against 0.47-0.55 with 250 ms), long enough that a stream
 *   of small batches is folded a few at a time, not one by one.
 * - The embedded database folds on the app's own thread and its one connection, where each
 *   run takes time from ingest itself: 250 ms cut embedded ingest from about 12,400 to 7,400
 *   receipts/s (bench:streams), so it keeps 1 s.
 */
const SUMMARY_INTERVAL_MS = { postgres: 250, pglite: 1_000 } as const;
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;
// The embedded database has one connection, so waiting behind a large batch is normal there.
const DEFAULT_PGLITE_ACQUIRE_TIMEOUT_MS = 30_000;

function positiveInt(value: string | undefined): number | undefined {
  const n = value && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  return {
    url: env.DATABASE_URL || undefined,
    readUrl: env.DATABASE_READ_URL || undefined,
    dataDir: env.FLOORLINE_DATA_DIR || path.join(process.cwd(), ".floorline", "data"),
    statementTimeoutMs: positiveInt(env.FLOORLINE_STATEMENT_TIMEOUT_MS),
    acquireTimeoutMs: positiveInt(env.FLOORLINE_DB_ACQUIRE_TIMEOUT_MS),
  };
}

/** No connection came free within the acquire timeout: the database is overloaded, answer 503. */
export class DatabaseBusyError extends Error {
  readonly code = "DB_ACQUIRE_TIMEOUT";
  constructor(waitedMs: number) {
    super(`No database connection came free within ${waitedMs} ms`);
    this.name = "DatabaseBusyError";
  }
}

/** A query outlived every server-side bound: its connection is presumed stuck, answer 503. */
export class DatabaseStuckError extends Error {
  readonly code = "DB_QUERY_DEADLINE";
  constructor(waitedMs: number) {
    super(`A database call got no answer within ${waitedMs} ms`);
    this.name = "DatabaseStuckError";
  }
}

/**
 * At most `size` holders at once; a waiter that gets no slot within `timeoutMs` fails with
 * DatabaseBusyError instead of queueing for ever behind a stuck pool.
 */
function gate(size: number, timeoutMs: number) {
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

type Acquire = ReturnType<typeof gate>;

async function holding<T>(acquire: Acquire, run: () => PromiseLike<T>, deadline?: Deadline): Promise<T> {
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

interface Deadline {
  ms: number;
  onExpired: () => void;
}

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

/**
 * PGlite has one connection: `query`, `exec`, `transaction` and `listen` (which runs LISTEN)
 * take it one at a time, boundedly.
 */
function gatePglite<C extends object>(client: C, acquire: Acquire): C {
  const gated = new Set<PropertyKey>(["query", "exec", "transaction", "listen"]);
  return new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (!gated.has(key) || typeof value !== "function") return value;
      return (...args: unknown[]) => holding(acquire, () => value.apply(target, args));
    },
  });
}

const MIGRATIONS_FOLDER = path.join(process.cwd(), "drizzle");
// Any fixed number: serialises migrations when several app instances start at once.
const MIGRATION_LOCK_KEY = 0x466c6f6f;

async function open(config: DatabaseConfig): Promise<Handle> {
  const handle = await openDriver(config);
  const summaries = new FollowUp(
    (error) => console.error("[floorline] folding passes into chain summaries failed:", error),
    SUMMARY_INTERVAL_MS[handle.driver],
  );
  return {
    ...handle,
    summaries,
    // The run under way finishes first: closing under it would leave it failing.
    close: async () => {
      await summaries.settled();
      await handle.close();
    },
  };
}

async function openDriver(config: DatabaseConfig): Promise<Omit<Handle, "summaries">> {
  if (config.url) {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    const lockClient = postgres(config.url, { max: 1, onnotice: () => {} });
    try {
      await lockClient`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
      await migrate(drizzle({ client: lockClient }), { migrationsFolder: MIGRATIONS_FOLDER });
      await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    } finally {
      await lockClient.end();
    }
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

  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const dataDir = config.dataDir ?? "memory://";
  let lock: { release(): void } | undefined;
  if (!dataDir.includes("://")) {
    mkdirSync(dataDir, { recursive: true });
    // Throws DataFolderLockedError, naming the owner, when another live process has the folder.
    lock = acquireDataLock(dataDir);
  }
  try {
    // pg_trgm backs the substring searches' trigram indexes, as on the server.
    const client = new PGlite(dataDir, { extensions: { pg_trgm } });
    await client.waitReady;
    await migrate(drizzle({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    // No statement timeout here: PGlite runs in WebAssembly without timers, so PostgreSQL's
    // `statement_timeout` is accepted and never fires (tried). The acquire timeout still
    // bounds how long a request waits behind a slow statement.
    const gated = gatePglite(client, gate(1, config.acquireTimeoutMs ?? DEFAULT_PGLITE_ACQUIRE_TIMEOUT_MS));
    const db = drizzle({ client: gated, schema });
    return {
      db: db as unknown as Db,
      readDb: db as unknown as Db,
      driver: "pglite",
      listen: gated.listen,
      close: async () => {
        try {
          await client.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** Opening or migrating the database failed: the API answers 503 and the next request retries. */
export class DatabaseUnavailableError extends Error {
  readonly code = "DATABASE_UNAVAILABLE";
  // Next.js passes a server error's own digest to the error page (and nothing else of it in
  // production), so the page can say the database is the cause.
  readonly digest = "DATABASE_UNAVAILABLE";
  constructor(cause: unknown, message = "The database could not be opened") {
    super(message, { cause });
    this.name = "DatabaseUnavailableError";
  }
}

const globalForDb = globalThis as unknown as { floorlineDb?: Promise<Handle> };

/** The process-wide database, migrated on first use. Cached on globalThis so dev reloads reuse it. */
export function getHandle(): Promise<Handle> {
  // During shutdown, requests still draining keep the open handle; once it is closed nothing
  // reopens it (a reopened embedded database would outlive the process's clean close).
  if (!globalForDb.floorlineDb && shutdownSignal().aborted) {
    return Promise.reject(new DatabaseUnavailableError(undefined, "The server is shutting down"));
  }
  globalForDb.floorlineDb ??= open(configFromEnv()).catch((error: unknown) => {
    globalForDb.floorlineDb = undefined;
    throw new DatabaseUnavailableError(error);
  });
  return globalForDb.floorlineDb;
}

export async function getDb(): Promise<Db> {
  return (await getHandle()).db;
}

/**
 * The database for pages, lists and exports: the read replica when DATABASE_READ_URL is set.
 * Ingest, writes and anything that decides a verdict use getDb(): a replica may lag.
 * Waits first for the chain summaries of every pass this process stored before the call
 * (db/ingest/summaries.ts), so a page read after an ingest shows it; never call it inside a
 * transaction that holds chain locks.
 */
export async function getReadDb(): Promise<Db> {
  return (await settledHandle()).readDb;
}

/**
 * The primary, for reads of chain summaries that must not lag (the live streams' change
 * checks): like getReadDb(), it waits first for the summaries of what this process stored.
 */
export async function getSettledDb(): Promise<Db> {
  return (await settledHandle()).db;
}

async function settledHandle(): Promise<Handle> {
  const handle = await getHandle();
  await handle.summaries.settled();
  return handle;
}

/**
 * Resolves once the summariser has folded every pass this process stored before the call.
 * Opens nothing: with no database open (or none that opened), nothing stored is waiting.
 */
export async function summariesSettled(): Promise<void> {
  const pending = globalForDb.floorlineDb;
  if (!pending) return;
  const handle = await pending.catch(() => null);
  await handle?.summaries.settled();
}

/** Opens a database of its own (tests, scripts); the caller closes it. */
export function openDatabase(config: DatabaseConfig): Promise<Handle> {
  return open(config);
}

/** Replaces the process-wide database (tests, the demo seeder). */
export function setHandle(handle: Promise<Handle> | undefined): void {
  globalForDb.floorlineDb = handle;
}

export async function closeDb(): Promise<void> {
  const pending = globalForDb.floorlineDb;
  globalForDb.floorlineDb = undefined;
  if (pending) await (await pending).close();
}

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

/** Raw SQL rows: PGlite answers `{ rows }`, postgres.js an array. */
export async function queryRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** The one row an aggregate, a `returning` or a locked read must give; none is a bug, not bad input. */
export function onlyRow<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error("expected one row, got none");
  return row;
}

export { schema };
