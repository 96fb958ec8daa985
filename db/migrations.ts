// The migrations in drizzle/, applied as the database opens. One folder serves both drivers.
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import * as schema from "./schema";

const MIGRATIONS_FOLDER = path.join(process.cwd(), "drizzle");
// Any fixed number: serialises migrations when several app instances (or the CLI) start at once.
const MIGRATION_LOCK_KEY = 0x466c6f6f;

/** Migrates a PostgreSQL server under an advisory lock, on a connection of its own. */
export async function migratePostgres(url: string): Promise<void> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const lockClient = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await lockClient`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migrate(drizzle({ client: lockClient }), { migrationsFolder: MIGRATIONS_FOLDER });
    await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await lockClient.end();
  }
}

/** Migrates an embedded database; its folder's lock already keeps other processes out. */
export async function migratePglite(client: PGlite): Promise<void> {
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  await migrate(drizzle({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
}
