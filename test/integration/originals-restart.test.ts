// Originals, tombstones and counters live in the database, not in the process: they are all
// there after the database is closed and opened again (an embedded data folder, or a server).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, expect, it } from "vitest";
import { closeDb, openDatabase, setHandle } from "@/db/index";
import type { DatabaseConfig } from "@/db/config";
import { enforceStoreLimits } from "@/db/queries/originals/eviction";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { storeOriginal } from "@/db/queries/originals/store";
import { ApiError } from "@/lib/errors";
import { driver } from "../support/database";
import { dropScratchDatabase } from "../support/scratch-database";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  await closeDb();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function durableConfig(): Promise<DatabaseConfig> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (driver === "pglite" || !adminUrl) {
    const dataDir = mkdtempSync(path.join(tmpdir(), "floorline-originals-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    return { dataDir };
  }
  const name = `floorline_t_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  cleanups.push(() => dropScratchDatabase(adminUrl, name));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString() };
}

it("keeps originals, tombstones and counters across a restart", async () => {
  const config = await durableConfig();
  setHandle(openDatabase(config));
  const budget = { maxBytes: 10_000, defaultTtlSeconds: null };
  const kept = await storeOriginal(
    { original: "survives the restart " + "k".repeat(3000), tool_name: "fs.read" },
    { config: budget },
  );
  const evicted = await storeOriginal(
    { original: "evicted before the restart " + "e".repeat(3000) },
    { now: new Date(Date.now() - 60_000), config: budget },
  );
  await enforceStoreLimits({ config: { ...budget, maxBytes: 4000 } });
  await retrieveOriginal(kept.result.hash);
  const before = await getOriginalStats(24, { config: budget });
  await closeDb();

  setHandle(openDatabase(config));
  const back = await retrieveOriginal(kept.result.hash.slice(0, 12));
  expect(back.original).toBe("survives the restart " + "k".repeat(3000));
  expect(back.tool_name).toBe("fs.read");
  expect(back.retrieval_count).toBe(2);
  const gone = await retrieveOriginal(evicted.result.hash).catch((e: unknown) => e);
  expect(gone).toBeInstanceOf(ApiError);
  expect((gone as ApiError).code).toBe("evicted");
  const after = await getOriginalStats(24, { config: budget });
  expect(after.totals.stored).toBe(before.totals.stored);
  expect(after.totals.evictions).toBe(1);
  expect(after.totals.retrieved).toBe(before.totals.retrieved + 1);
  expect(after.totals.misses.evicted).toBe(before.totals.misses.evicted + 1);
});
