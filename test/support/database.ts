// Every integration test file gets a database of its own: an in-memory PGlite by default,
// or a fresh database on the PostgreSQL server named by TEST_DATABASE_URL. Route handlers
// and queries reach it through the process-wide handle, exactly as in the app.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { closeDb, openDatabase, setHandle } from "@/db/index";

export const driver: "pglite" | "postgres" = process.env.TEST_DATABASE_URL ? "postgres" : "pglite";

/** Registers beforeAll/afterAll hooks that give this test file a database of its own. */
export function setUpTestDatabase(): void {
  let dropDatabase: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) {
      setHandle(openDatabase({ dataDir: "memory://" }));
      return;
    }
    const name = `floorline_t_${randomBytes(6).toString("hex")}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    setHandle(openDatabase({ url: url.toString() }));
    dropDatabase = async () => {
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        // A throw-away database: a session the test role may not end (a superuser's, an
        // autovacuum worker's) can hold it for a moment, and that is no failure of the tests.
        for (let attempt = 1; ; attempt++) {
          try {
            await a.unsafe(`drop database if exists ${name} with (force)`);
            return;
          } catch (error) {
            if (attempt >= 5) {
              console.warn(`[test] could not drop ${name}; leaving it:`, (error as Error).message);
              return;
            }
            await new Promise((r) => setTimeout(r, 1_000 * attempt));
          }
        }
      } finally {
        await a.end();
      }
    };
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
