// Every integration test file gets a database of its own: an in-memory PGlite by default,
// or a fresh database on the PostgreSQL server named by TEST_DATABASE_URL. Each starts as a
// copy of one made once per run (test/support/database-images.ts): migrated, or migrated and
// seeded with the demo. Route handlers and queries reach it through the process-wide handle,
// exactly as in the app.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { closeDb, openDatabase, setHandle } from "@/db/index";
import { databaseUrl } from "./database-images";
import { dropScratchDatabase } from "./scratch-database";

export const driver: "pglite" | "postgres" = process.env.TEST_DATABASE_URL ? "postgres" : "pglite";

export interface TestDatabaseOptions {
  /** "demo": the file starts with the demo's data, as `npm start` seeds it; default empty. */
  from?: "empty" | "demo";
}

/** Registers beforeAll/afterAll hooks that give this test file a database of its own. */
export function setUpTestDatabase(options: TestDatabaseOptions = {}): void {
  let dropDatabase: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const images = inject("databaseImages");
    const image = options.from === "demo" ? images.demo : images.migrated;
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (images.driver === "pglite" || !adminUrl) {
      setHandle(openDatabase({ dataDir: "memory://", image: new Blob([readFileSync(image)]) }));
      return;
    }
    const name = `floorline_t_${randomBytes(6).toString("hex")}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`create database ${name} template ${image}`);
    } finally {
      await admin.end();
    }
    setHandle(openDatabase({ url: databaseUrl(adminUrl, name) }));
    dropDatabase = () => dropScratchDatabase(adminUrl, name);
  });
  afterAll(async () => {
    await closeDb();
    await dropDatabase?.();
  });
}

/** Calls a route handler the way Next.js does, with a real Request. */
export function jsonRequest(
  path: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Request {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  return new Request(`http://localhost${path}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    body,
    headers: { "content-type": "application/json", ...init.headers },
  });
}

export function params<T extends Record<string, string>>(value: T): { params: Promise<T> } {
  return { params: Promise.resolve(value) };
}
