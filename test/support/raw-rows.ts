// Whole rows as the driver answers them, undecoded: for the tests that compare every column of
// a table with a recompute generically (whatever columns the schema grows) and normalise the
// values themselves. Queries elsewhere decode their rows by a spec (db/sql.ts).
import type { SQL } from "drizzle-orm";
import type { Executor } from "@/db/types";

export async function rawRows(executor: Executor, query: SQL): Promise<Record<string, unknown>[]> {
  const result = (await executor.execute(query)) as unknown;
  return Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows;
}
