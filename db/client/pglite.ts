// The embedded client (PGlite): one connection, gated, in a folder this process holds the
// lock of (db/data-lock.ts), or in memory.
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle } from "drizzle-orm/pglite";
import { DEFAULT_PGLITE_ACQUIRE_TIMEOUT_MS, type DatabaseConfig } from "../config";
import { acquireDataLock } from "../data-lock";
import { migratePglite } from "../migrations";
import { type Acquire, gate, holding } from "../pool-gate";
import * as schema from "../schema";
import type { Connection, Db } from "../types";

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

export async function openPglite(config: DatabaseConfig): Promise<Connection> {
  const dataDir = config.dataDir ?? "memory://";
  let lock: { release(): void } | undefined;
  if (!dataDir.includes("://")) {
    mkdirSync(dataDir, { recursive: true });
    // Throws DataFolderLockedError, naming the owner, when another live process has the folder.
    lock = acquireDataLock(dataDir);
  }
  try {
    // pg_trgm backs the substring searches' trigram indexes, as on the server.
    const client = new PGlite(dataDir, { extensions: { pg_trgm }, loadDataDir: config.image });
    await client.waitReady;
    await migratePglite(client);
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
