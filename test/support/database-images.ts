// Vitest global setup for the integration tests: the databases every test file starts from,
// made once per run instead of once per file. A fresh PGlite runs initdb (4 s on a quiet
// machine, 8-11 s under load) and the demo's seed takes about 5 s; loading a dump of a
// migrated (or migrated and seeded) data folder takes about 1 s, and on PostgreSQL
// `create database … template` copies one in a moment.
// - PGlite: two dumps of a data folder (`migrated.tar`, `demo.tar`) in a temporary folder.
// - PostgreSQL (TEST_DATABASE_URL set): two template databases, dropped at the end.
// test/support/database.ts opens each file's database from them; the app processes a suite
// starts begin from a migrated data folder (test/support/data-folders.ts).
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { seedDemoIfEmpty } from "@/demo/seed";
import { closeDb, openDatabase, setHandle } from "@/db/index";
import { migratePglite, migratePostgres } from "@/db/migrations";
import { makeDataFolderTemplate } from "./data-folders";
import { dropScratchDatabase } from "./scratch-database";

export type DatabaseImages =
  | { driver: "pglite"; migrated: string; demo: string }
  | { driver: "postgres"; migrated: string; demo: string };

declare module "vitest" {
  export interface ProvidedContext {
    databaseImages: DatabaseImages;
  }
}

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function seedDemo(handle: ReturnType<typeof openDatabase>): Promise<void> {
  setHandle(handle);
  try {
    if ((await seedDemoIfEmpty()) === 0) throw new Error("the demo seeded nothing into a new database");
  } finally {
    await closeDb();
  }
}

async function pgliteImages(): Promise<{ images: DatabaseImages; remove: () => void }> {
  const folder = mkdtempSync(path.join(tmpdir(), "floorline-test-images-"));
  const migrated = path.join(folder, "migrated.tar");
  const demo = path.join(folder, "demo.tar");

  const client = new PGlite("memory://", { extensions: { pg_trgm } });
  await client.waitReady;
  await migratePglite(client);
  writeFileSync(migrated, new Uint8Array(await (await client.dumpDataDir("none")).arrayBuffer()));
  await client.close();

  // Seeded through the app's own handle (its gate, its summariser), in a folder, so that the
  // handle's clean close is what gets dumped.
  const seeded = path.join(folder, "demo-data");
  await seedDemo(openDatabase({ dataDir: seeded, image: new Blob([readFileSync(migrated)]) }));
  const reopened = new PGlite(seeded, { extensions: { pg_trgm } });
  // dumpDataDir() does not wait for the database to be ready: the process dies without it.
  await reopened.waitReady;
  writeFileSync(demo, new Uint8Array(await (await reopened.dumpDataDir("none")).arrayBuffer()));
  await reopened.close();
  rmSync(seeded, { recursive: true, force: true });

  return {
    images: { driver: "pglite", migrated, demo },
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

async function postgresImages(adminUrl: string): Promise<{ images: DatabaseImages; remove: () => Promise<void> }> {
  const suffix = randomBytes(6).toString("hex");
  const migrated = `floorline_tpl_${suffix}`;
  const demo = `floorline_tpl_demo_${suffix}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${migrated}`);
    await migratePostgres(databaseUrl(adminUrl, migrated));
    await admin.unsafe(`create database ${demo} template ${migrated}`);
    await seedDemo(openDatabase({ url: databaseUrl(adminUrl, demo) }));
  } finally {
    await admin.end();
  }
  return {
    images: { driver: "postgres", migrated, demo },
    remove: async () => {
      for (const name of [demo, migrated]) await dropScratchDatabase(adminUrl, name);
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const adminUrl = process.env.TEST_DATABASE_URL;
  const { images, remove } = adminUrl ? await postgresImages(adminUrl) : await pgliteImages();
  project.provide("databaseImages", images);
  // The app processes the suites start (sdk-app) start from a migrated folder too.
  const removeFolder = await makeDataFolderTemplate(path.join(process.cwd(), ".floorline"));
  console.log(`[test] ${images.driver} databases to start from, made in ${Math.round(performance.now() - started)} ms`);
  return async () => {
    removeFolder();
    await remove();
  };
}
