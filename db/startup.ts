import { sql } from "drizzle-orm";
import { closeDb, configFromEnv, getHandle } from "./index";
import { seedDemoIfEmpty } from "./demo";

/** `FLOORLINE_DEMO`: "1" seeds an empty database, "0" never; default on only for the embedded database. */
export function demoEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FLOORLINE_DEMO === "1") return true;
  if (env.FLOORLINE_DEMO === "0") return false;
  return !configFromEnv(env).url;
}

let shuttingDown = false;

async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log(`[floorline] ${signal}: closing the database`);
  try {
    await closeDb();
  } catch (error) {
    console.error("[floorline] error while closing the database:", error);
  }
  process.exit(0);
}

export async function startDatabase(): Promise<void> {
  // With NEXT_MANUAL_SIG_HANDLE set (scripts/start.mjs sets it), Next leaves signals to us,
  // so the embedded database is closed before the process exits.
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  try {
    const handle = await getHandle();
    console.log(`[floorline] database ready (${handle.driver}); migrations applied`);
    if (demoEnabled()) {
      const seeded = await seedDemoIfEmpty();
      if (seeded) console.log(`[floorline] demo data seeded: ${seeded} chains`);
    }
    // PGlite has no autovacuum daemon, so without this the planner never gets statistics
    // and misjudges every query on a long chain.
    if (handle.driver === "pglite") await handle.db.execute(sql`analyze`);
  } catch (error) {
    // Serve anyway: the API answers 503 until the database is reachable, and every request
    // tries to connect (and migrate) again.
    console.error("[floorline] database unavailable at start-up; requests will retry:", error);
  }
}
