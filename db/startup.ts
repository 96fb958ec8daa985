import { sql } from "drizzle-orm";
import { errorFields, logger } from "@/lib/observability/log.mjs";
import { closeDb, configFromEnv, getHandle, lifecycle } from "./index";
import { seedDemoIfEmpty } from "./demo";
import { stopRetention } from "./retention-worker";
import { accessStartupMessage } from "@/lib/auth/access";
import { credentialsExist } from "./queries/access";

/** `FLOORLINE_DEMO`: "1" seeds an empty database, "0" never; default on only for the embedded database. */
export function demoEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FLOORLINE_DEMO === "1") return true;
  if (env.FLOORLINE_DEMO === "0") return false;
  return !configFromEnv(env).url;
}

const shutdownHooks: (() => Promise<void>)[] = [];

/** Work to stop before the database closes (background workers), run in order at shutdown. */
export function beforeShutdown(hook: () => Promise<void>): void {
  shutdownHooks.push(hook);
}

async function stopBackgroundWork(): Promise<void> {
  for (const hook of shutdownHooks.splice(0)) {
    try {
      await hook();
    } catch (error) {
      logger.error({ err: errorFields(error) }, "error while stopping background work");
    }
  }
}

/** What `lifecycle().close` does: background work first, then the database. */
async function closeAll(): Promise<void> {
  await stopBackgroundWork();
  await closeDb();
}

// Without scripts/start.mjs (a plain `next start` with NEXT_MANUAL_SIG_HANDLE=1, which leaves
// signals to us): end the event streams, close the database, exit. There is no drain here;
// scripts/start.mjs does that and then calls `lifecycle().close`.
async function shutdown(signal: string) {
  const life = lifecycle();
  if (life.stopping.signal.aborted) return;
  life.stopping.abort();
  await stopBackgroundWork();
  logger.info(`${signal}: closing the database`);
  try {
    await stopRetention();
    await closeDb();
  } catch (error) {
    logger.error({ err: errorFields(error) }, "error while closing the database");
  }
  process.exit(0);
}

function lockedFolder(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "DATA_FOLDER_LOCKED") return (e as Error).message;
  }
  return undefined;
}

export async function startDatabase(): Promise<void> {
  const life = lifecycle();
  life.close = closeAll;
  if (!life.server) {
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
    process.once("SIGINT", () => void shutdown("SIGINT"));
  }
  try {
    const handle = await getHandle();
    logger.info(`database ready (${handle.driver}); migrations applied`);
    if (demoEnabled()) {
      const seeded = await seedDemoIfEmpty();
      if (seeded) logger.info(`demo data seeded: ${seeded} chains`);
    }
    // PGlite has no autovacuum daemon, so without this the planner never gets statistics
    // and misjudges every query on a long chain.
    if (handle.driver === "pglite") await handle.db.execute(sql`analyze`);
    const access = accessStartupMessage(process.env, await credentialsExist());
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
    logger.error({ err: errorFields(error) }, "database unavailable at start-up; requests will retry");
  }
}
