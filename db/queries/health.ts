import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../index";

export async function checkDatabase(): Promise<boolean> {
  try {
    const db = await getDb();
    await db.execute(sql`select 1`);
    return true;
  } catch (error) {
    console.error("[floorline] health check failed:", error);
    return false;
  }
}
