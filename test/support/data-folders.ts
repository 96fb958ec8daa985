// Embedded data folders for the app processes tests start: one folder is migrated once per
// run (a global setup calls makeDataFolderTemplate), and every empty folder a test hands to
// the app starts as a copy of it (fillDataFolder, from test/support/app-server.ts and the CLI
// helper). A copy opens in about 0.6 s; a new folder runs initdb first (4-10 s of CPU).
// The template's path travels in the environment, so Playwright's workers and the processes
// they spawn see it; without it (a benchmark, a spec run by hand) folders start empty.
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { migratePglite } from "../../db/migrations";

const TEMPLATE_ENV = "FLOORLINE_TEST_DATA_TEMPLATE";

/** Makes the migrated folder under `root` and points this process's environment at it. */
export async function makeDataFolderTemplate(root: string): Promise<() => void> {
  const folder = path.join(root, `data-template-${process.pid}`);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const client = new PGlite(folder, { extensions: { pg_trgm } });
  await client.waitReady;
  await migratePglite(client);
  await client.close();
  process.env[TEMPLATE_ENV] = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}

/** Copies the migrated template into `dataDir` when that folder holds nothing yet. */
export function fillDataFolder(dataDir: string): void {
  const template = process.env[TEMPLATE_ENV];
  if (!template || !existsSync(template)) return;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return;
  cpSync(template, dataDir, { recursive: true });
}
