// The one place that opens a database connection. PGlite (embedded Postgres) when
// DATABASE_URL is unset, postgres.js against a real server when it is set; one schema and
// one migrations folder serve both.
import path from "node:path";
import { mkdirSync } from "node:fs";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything queries can run on: the database itself or an open transaction. */
export type Executor = Db | Tx;

interface Handle {
  db: Db;
  driver: "pglite" | "postgres";
  close: () => Promise<void>;
}

export interface DatabaseConfig {
  /** postgres:// URL; when absent the embedded database is used. */
  url?: string;
  /** Embedded data folder, or `memory://` for a throw-away database. */
  dataDir?: string;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  return {
    url: env.DATABASE_URL || undefined,
    dataDir: env.FLOORLINE_DATA_DIR || path.join(process.cwd(), ".floorline", "data"),
  };
}

const MIGRATIONS_FOLDER = path.join(process.cwd(), "drizzle");
// Any fixed number: serialises migrations when several app instances start at once.
const MIGRATION_LOCK_KEY = 0x466c6f6f;

async function open(config: DatabaseConfig): Promise<Handle> {
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
    const client = postgres(config.url, { max: 10, onnotice: () => {} });
    return {
      db: drizzle({ client, schema }) as unknown as Db,
      driver: "postgres",
      close: () => client.end({ timeout: 5 }),
    };
  }

  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const dataDir = config.dataDir ?? "memory://";
  if (!dataDir.includes("://")) mkdirSync(dataDir, { recursive: true });
  const client = new PGlite(dataDir);
  await client.waitReady;
  const db = drizzle({ client, schema });
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db: db as unknown as Db, driver: "pglite", close: () => client.close() };
}

/** Opening or migrating the database failed: the API answers 503 and the next request retries. */
export class DatabaseUnavailableError extends Error {
  readonly code = "DATABASE_UNAVAILABLE";
  constructor(cause: unknown) {
    super("The database could not be opened", { cause });
    this.name = "DatabaseUnavailableError";
  }
}

const globalForDb = globalThis as unknown as { floorlineDb?: Promise<Handle> };

/** The process-wide database, migrated on first use. Cached on globalThis so dev reloads reuse it. */
export function getHandle(): Promise<Handle> {
  globalForDb.floorlineDb ??= open(configFromEnv()).catch((error: unknown) => {
    globalForDb.floorlineDb = undefined;
    throw new DatabaseUnavailableError(error);
  });
  return globalForDb.floorlineDb;
}

export async function getDb(): Promise<Db> {
  return (await getHandle()).db;
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
