// The process's database: opened (and migrated) on first use, one per process, closed at
// shutdown. The one place that decides which client to open: PGlite (embedded Postgres,
// db/client/pglite.ts) when DATABASE_URL is unset, postgres.js (db/client/postgres.ts) when
// it is set; one schema and one migrations folder serve both.
import { configFromEnv, type DatabaseConfig } from "./config";
import { DatabaseUnavailableError } from "./errors";
import { FollowUp } from "./follow-up";
import { shutdownSignal } from "./lifecycle";
import * as schema from "./schema";
import type { Connection, Db } from "./types";
import { errorFields, logger } from "@/lib/observability/log";
import { processSingleton } from "@/lib/process-singleton";

interface Handle extends Connection {
  /**
   * The summariser's runs on this database (db/ingest/summaries.ts): the pass ingest asks for
   * one after each commit; reads through getReadDb() wait for those asked before them.
   */
  summaries: FollowUp;
}

/**
 * Under a steady stream of ingests, the chain summaries are folded at most this often (a lone
 * ingest is folded at once, and a read of the same process never waits for the interval).
 * - PostgreSQL folds in its own processes, beside the app's: short enough that little is
 *   left to fold when a stream stops (a longer interval left several large batches to the
 *   last run, and bench:ingest fell), long enough that a stream of small batches is folded a
 *   few at a time, not one by one.
 * - The embedded database folds on the app's own thread and its one connection, where each
 *   run takes time from ingest itself: the shorter interval cut embedded ingest sharply
 *   (bench:streams), so it keeps the longer one.
 */
const SUMMARY_INTERVAL_MS = { postgres: 250, pglite: 1_000 } as const;

async function open(config: DatabaseConfig): Promise<Handle> {
  const connection = config.url
    ? await (await import("./client/postgres")).openPostgres({ ...config, url: config.url })
    : await (await import("./client/pglite")).openPglite(config);
  const summaries = new FollowUp(
    // Through the redacting helper: a failed fold's error carries the receipts it wrote.
    (error) => logger.error({ err: errorFields(error) }, "folding passes into chain summaries failed"),
    SUMMARY_INTERVAL_MS[connection.driver],
  );
  return {
    ...connection,
    summaries,
    // The run under way finishes first: closing under it would leave it failing.
    close: async () => {
      await summaries.settled();
      await connection.close();
    },
  };
}

/** The process-wide handle; dev reloads and every bundle of the app share it. */
const current = processSingleton("database", () => ({ handle: undefined as Promise<Handle> | undefined }));

/** The process-wide database, migrated on first use. */
export function getHandle(): Promise<Handle> {
  // During shutdown, requests still draining keep the open handle; once it is closed nothing
  // reopens it (a reopened embedded database would outlive the process's clean close).
  if (!current.handle && shutdownSignal().aborted) {
    return Promise.reject(new DatabaseUnavailableError(undefined, "The server is shutting down"));
  }
  current.handle ??= open(configFromEnv()).catch((error: unknown) => {
    current.handle = undefined;
    throw new DatabaseUnavailableError(error);
  });
  return current.handle;
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
  const pending = current.handle;
  if (!pending) return;
  const handle = await pending.catch(() => null);
  await handle?.summaries.settled();
}

/** Opens a database of its own (tests, scripts); the caller closes it. */
export function openDatabase(config: DatabaseConfig): Promise<Handle> {
  return open(config);
}

/** Replaces the process-wide database (tests, the demo seeder, the CLI). */
export function setHandle(handle: Promise<Handle> | undefined): void {
  current.handle = handle;
}

export async function closeDb(): Promise<void> {
  const pending = current.handle;
  current.handle = undefined;
  if (pending) await (await pending).close();
}

export { schema };
