import { sql } from "drizzle-orm";
import { errorFields, logger } from "@/lib/observability/log";
import { databaseTroubleCause } from "@/lib/errors";
import { closeDb, getHandle } from "./index";
import { configFromEnv } from "./config";
import { exitOnSignals, onClose, setStartupPhase } from "./lifecycle";
import { stopWorkers } from "./workers/worker";
import { accessStartupMessage } from "@/lib/auth/access";
import { credentialsExist } from "./queries/access";
import { env, envRecord, type EnvSource } from "@/lib/env";

/** `FLOORLINE_DEMO`: "1" seeds an empty database, "0" never; default on only for the embedded database. */
export function demoEnabled(source?: EnvSource): boolean {
  const demo = env("FLOORLINE_DEMO", source);
  return demo === undefined ? !configFromEnv(source).url : demo === "1";
}

/** How the app closes: background work first, then the database. */
async function closeAll(): Promise<void> {
  await stopWorkers();
  await closeDb();
}

function lockedFolder(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "DATA_FOLDER_LOCKED") return (e as Error).message;
  }
  return undefined;
}

/**
 * Opens (and migrates) the database, then seeds the demo when it is enabled and the database
 * is empty: `seedDemo` comes from above this layer (demo/seed.ts), and answers how many
 * chains it made.
 */
export async function startDatabase(seedDemo: () => Promise<number>): Promise<void> {
  onClose(closeAll);
  exitOnSignals();
  try {
    setStartupPhase("opening the database and applying its migrations");
    const handle = await getHandle();
    logger.info(`database ready (${handle.driver}); migrations applied`);
    if (demoEnabled()) {
      setStartupPhase("seeding the demo data (on the first start only)");
      const seeded = await seedDemo();
      if (seeded) logger.info(`demo data seeded: ${seeded} chains`);
    }
    // PGlite has no autovacuum daemon, so without this the planner never gets statistics
    // and misjudges every query on a long chain.
    setStartupPhase("gathering the database's statistics");
    if (handle.driver === "pglite") await handle.db.execute(sql`analyze`);
    const access = accessStartupMessage(envRecord(), await credentialsExist());
    (access.warn ? console.warn : console.log)(`[floorline] ${access.text}`);
  } catch (error) {
    // Another live process owns the embedded folder: serving 503s for ever helps no one.
    const locked = lockedFolder(error);
    if (locked) {
      logger.fatal(locked);
      process.exit(1);
    }
    // Serve anyway: the API answers 503 until the database is reachable, and every request
    // tries to connect (and migrate) again.
    logger.error(
      { err: errorFields(error) },
      `database unavailable at start-up: ${databaseTroubleCause(error)}; requests answer 503 and try again`,
    );
  }
}
