// The database as the queries see it, whichever driver is behind it.
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything queries can run on: the database itself or an open transaction. */
export type Executor = Db | Tx;

/** An open database, as a driver (db/client/) gives it. */
export interface Connection {
  db: Db;
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

/** `chainId` → `chain_id`: a Drizzle column's key as its SQL name, for types of raw rows. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** The SQL names of a table's columns (`typeof table.$inferSelect` as T). */
export type ColumnNames<T> = SnakeCase<keyof T & string>;
