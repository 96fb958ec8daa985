// Raw SQL results the same on both drivers (Drizzle's `execute()` answers `{ rows }` on
// PGlite and an array on postgres.js).
import type { SQL } from "drizzle-orm";
import type { Executor } from "./types";

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
