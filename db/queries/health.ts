import "server-only";
import { sql } from "drizzle-orm";
import { errorFields, logger } from "@/lib/observability/log";
import { getDb } from "../index";

export async function checkDatabase(): Promise<boolean> {
  try {
    const db = await getDb();
    await db.execute(sql`select 1`);
    return true;
  } catch (error) {
    logger.warn({ err: errorFields(error) }, "health check: database unreachable");
    return false;
  }
}
