// Pages with the database down, over raw HTTP against the built app on a PostgreSQL cluster
// of this spec's own (never the shared one): stopped, every page answers 503 with
// Retry-After and a small page saying so, not a 200 with the error inside; started again,
// the pages come back by themselves. Needs root and PostgreSQL 15 (as CI has).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, freePort, postJson, receipt, startApp } from "../support/app-server";

const VERSION = "15";
const skipReason =
  process.getuid?.() !== 0
    ? "not running as root"
    : !existsSync("/usr/bin/pg_createcluster")
      ? "pg_createcluster is not installed"
      : undefined;

test.describe.configure({ mode: "serial" });
test.skip(skipReason !== undefined, skipReason);

const cluster = `flt_pages_${process.pid}`;
let dir = "";
let app: AppServer | undefined;

const pgctl = (action: "start" | "stop") =>
  execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", VERSION, cluster, action, "-m", "fast"], {
    stdio: "pipe",
  });
const asPostgres = (port: number, statement: string) =>
  execFileSync("su", ["postgres", "-c", `psql -q -p ${port} -v ON_ERROR_STOP=1 -c "${statement}"`], { stdio: "pipe" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = mkdtempSync(path.join(os.tmpdir(), "floorline-dbdown-"));
  const port = await freePort();
  execFileSync(
    "pg_createcluster",
    [VERSION, cluster, "-p", String(port), "-o", "max_wal_senders=0", "-o", "fsync=off", "--", "--no-sync"],
    { stdio: "pipe" },
  );
  pgctl("start");
  asPostgres(port, "create role fltpages login password 'fltpages'");
  asPostgres(port, "create database fltpages owner fltpages");
  app = await startApp({
    dataDir: path.join(dir, "unused"),
    env: {
      DATABASE_URL: `postgres://fltpages:fltpages@127.0.0.1:${port}/fltpages`,
      FLOORLINE_DB_ACQUIRE_TIMEOUT_MS: "2000",
      LOG_LEVEL: "fatal",
    },
  });
});

test.afterAll(async () => {
  await app?.stop();
  try {
    execFileSync("pg_dropcluster", ["--stop", VERSION, cluster], { stdio: "pipe" });
  } catch {
    // never created
  }
  rmSync(dir, { recursive: true, force: true });
});

const PAGES = ["/", "/chains", "/chains/db-down", "/policies", "/originals", "/traces", "/webhooks", "/sign-in"];
/** A page naming nothing stored: 404 while the database answers, 503 while it does not. */
const ABSENT = "/chains/absent";

test("with the database stopped every page answers 503 with Retry-After, and recovers when it is back", async () => {
  test.setTimeout(120_000);
  const stored = await postJson(`${app!.base}/api/v1/passes`, receipt("db-down", 1));
  expect(stored.status).toBe(201);
  for (const target of PAGES) {
    expect((await fetch(`${app!.base}${target}`, { redirect: "manual" })).status, target).toBe(200);
  }
  expect((await fetch(`${app!.base}${ABSENT}`, { redirect: "manual" })).status).toBe(404);
  pgctl("stop");
  for (const target of [...PAGES, ABSENT]) {
    const response = await fetch(`${app!.base}${target}`, { redirect: "manual" });
    const body = await response.text();
    expect(response.status, target).toBe(503);
    expect(Number(response.headers.get("retry-after")), target).toBeGreaterThan(0);
    expect(response.headers.get("content-type"), target).toContain("text/html");
    expect(body, target).toMatch(/database/i);
  }
  pgctl("start");
  await expect
    .poll(async () => (await fetch(`${app!.base}/chains`, { redirect: "manual" })).status, { timeout: 30_000 })
    .toBe(200);
});
