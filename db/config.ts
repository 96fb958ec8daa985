// Which database to open and how long its calls may wait, from the environment.
import path from "node:path";

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
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;
// The embedded database has one connection, so waiting behind a large batch is normal there.
export const DEFAULT_PGLITE_ACQUIRE_TIMEOUT_MS = 30_000;

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
