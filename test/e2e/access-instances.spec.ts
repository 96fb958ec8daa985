// Two instances of the built app on one PostgreSQL database, over raw HTTP: guesses at one
// name sent to both at once are counted together, so the limit holds across instances.
// Needs TEST_DATABASE_URL (the PostgreSQL pass of the tests sets it); a database of its own.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { type AppServer, startApp } from "../support/app-server";
import { dropScratchDatabase } from "../support/scratch-database";

const adminUrl = process.env.TEST_DATABASE_URL;
test.skip(!adminUrl, "needs TEST_DATABASE_URL");
test.describe.configure({ mode: "serial" });

const name = `floorline_t_${randomBytes(6).toString("hex")}`;
let dir = "";
const apps: AppServer[] = [];

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const admin = postgres(adminUrl!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl!);
  url.pathname = `/${name}`;
  dir = mkdtempSync(path.join(os.tmpdir(), "floorline-instances-"));
  // One after the other: the first applies the migrations.
  for (const i of [0, 1]) {
    apps.push(
      await startApp({
        dataDir: path.join(dir, `unused-${i}`),
        env: { DATABASE_URL: url.toString(), LOG_LEVEL: "warn" },
      }),
    );
  }
});

test.afterAll(async () => {
  for (const app of apps) await app.stop();
  rmSync(dir, { recursive: true, force: true });
  if (adminUrl) await dropScratchDatabase(adminUrl, name);
});

test("200 guesses at one name, half to each instance, get at most five checks in all", async () => {
  test.setTimeout(180_000);
  // The first operator, made through the open mode of a fresh install (this machine, no proxy).
  const created = await fetch(`${apps[0]!.base}/api/v1/operators`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "ines", role: "admin", password: "ines password 1" }),
  });
  expect(created.status, await created.text()).toBe(201);
  const guess = (base: string, i: number) =>
    fetch(`${base}/api/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "ines", password: `guess ${i}` }),
    }).then((r) => r.status);
  const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => guess(apps[i % 2]!.base, i)));
  const checked = statuses.filter((s) => s === 401).length;
  expect(checked, JSON.stringify(statuses)).toBeLessThanOrEqual(5);
  expect(statuses.filter((s) => s === 429).length).toBe(200 - checked);
});
