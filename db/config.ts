// Which database to open and how long its calls may wait, from the environment.
import path from "node:path";
import { env, type EnvSource } from "@/lib/env";

export interface DatabaseConfig {
  /** postgres:// URL; when absent the embedded database is used. */
  url?: string;
  /** A read replica of `url` for dashboard reads (DATABASE_READ_URL); only with `url`. */
  readUrl?: string;
  /** Embedded data folder, or `memory://` for a throw-away database. */
  dataDir?: string;
  /**
   * An embedded database to start from instead of an empty one: a data folder as PGlite's
   * `dumpDataDir()` writes it, loaded into `dataDir` (which must hold no database yet). The
   * tests start each file from one migrated (or seeded) image instead of running initdb.
   */
  image?: Blob;
  /** Longest a statement may run (PostgreSQL only: PGlite cannot interrupt a running statement). */
  statementTimeoutMs?: number;
  /** Longest a query waits for a free connection (and, on PostgreSQL, to connect). */
  acquireTimeoutMs?: number;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;
// The embedded database has one connection, so waiting behind a large batch is normal there.
export const DEFAULT_PGLITE_ACQUIRE_TIMEOUT_MS = 30_000;

export function configFromEnv(source?: EnvSource): DatabaseConfig {
  return {
    url: env("DATABASE_URL", source),
    readUrl: env("DATABASE_READ_URL", source),
    dataDir: env("FLOORLINE_DATA_DIR", source) ?? path.join(process.cwd(), ".floorline", "data"),
    statementTimeoutMs: env("FLOORLINE_STATEMENT_TIMEOUT_MS", source),
    acquireTimeoutMs: env("FLOORLINE_DB_ACQUIRE_TIMEOUT_MS", source),
  };
}
