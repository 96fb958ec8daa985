// Database time is bounded: a query waits for a connection at most the acquire timeout, and
// (on PostgreSQL) runs at most the statement timeout; past either the answer is 503 with
// Retry-After, never a hung request.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { DatabaseConfig } from "@/db/config";
import { openDatabase } from "@/db/index";
import { retryTransient } from "@/db/retry";
import { toErrorResponse } from "@/lib/errors";
import { driver } from "../support/database";

const config = (extra: Partial<DatabaseConfig>): DatabaseConfig =>
  driver === "postgres" ? { url: process.env.TEST_DATABASE_URL, ...extra } : { dataDir: "memory://", ...extra };

async function expect503(error: unknown) {
  const response = toErrorResponse(error);
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
  expect((await response.json()).error.code).toBe("database_unavailable");
}

describe(`database time bounds (${driver})`, () => {
  it("fails a query that cannot get a connection within the acquire timeout with 503", async () => {
    // Two seconds, not less: the same bound applies to connecting, and the ten holders below
    // connect at once on a machine CI keeps busy (300 ms timed out connecting there).
    const handle = await openDatabase(config({ acquireTimeoutMs: 2_000 }));
    let release!: () => void;
    const busy = new Promise<void>((r) => (release = r));
    try {
      // Every connection busy: one on PGlite, the pool of ten on PostgreSQL.
      const holders = Array.from({ length: handle.driver === "pglite" ? 1 : 10 }, () =>
        handle.db.transaction(async (tx) => {
          await tx.execute(sql`select 1`);
          await busy;
        }),
      );
      await new Promise((r) => setTimeout(r, 500));
      const started = Date.now();
      const error = await handle.db.execute(sql`select 1`).then(
        () => undefined,
        (e: unknown) => e,
      );
      // Drizzle wraps the driver's error; the gate's is its cause.
      expect((error as { cause?: { code?: string } } | undefined)?.cause?.code).toBe("DB_ACQUIRE_TIMEOUT");
      expect(Date.now() - started).toBeLessThan(5_000);
      await expect503(error);
      release();
      await Promise.all(holders);
      // Slots come back: the pool works again.
      await handle.db.execute(sql`select 1`);
    } finally {
      release();
      await handle.close();
    }
  });

  it.skipIf(driver !== "postgres")("cuts a statement at the statement timeout (57014) and answers 503", async () => {
    const handle = await openDatabase(config({ statementTimeoutMs: 200 }));
    try {
      const error = await handle.db.execute(sql`select pg_sleep(3)`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as { cause?: { code?: string } }).cause?.code).toBe("57014");
      await expect503(error);
    } finally {
      await handle.close();
    }
  });

  it.skipIf(driver !== "postgres")(
    "runs a transaction aborted by a deadlock (40P01) again, and it commits",
    async () => {
      const handle = await openDatabase(config({}));
      try {
        const [a, b] = [0x7e57_0001, 0x7e57_0002];
        let attempts = 0;
        // Two transactions take the same two locks in opposite order, each pausing in between:
        // PostgreSQL aborts one of them with 40P01 after deadlock_timeout.
        const crossing = (first: number, second: number) =>
          retryTransient(() =>
            handle.db.transaction(async (tx) => {
              attempts++;
              await tx.execute(sql`select pg_advisory_xact_lock(${first})`);
              await new Promise((r) => setTimeout(r, 200));
              await tx.execute(sql`select pg_advisory_xact_lock(${second})`);
              return "committed";
            }),
          );
        const results = await Promise.all([crossing(a, b), crossing(b, a)]);
        expect(results).toEqual(["committed", "committed"]);
        // Two first attempts, and at least one more for the deadlock's victim.
        expect(attempts).toBeGreaterThanOrEqual(3);
      } finally {
        await handle.close();
      }
    },
  );
});
