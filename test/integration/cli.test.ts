// The CLI (`npm run floorline -- ...`, scripts/floorline.ts) on a fresh database, spawned as
// a user would, the way package.json runs it. It migrates, creates the first key and
// operator, lists and revokes; then the app, on the same database, accepts exactly those.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, openDatabase, setHandle } from "@/db/index";
import { forgetCredentialsCache } from "@/db/queries/access";
import { driver } from "../support/database";
import { dropScratchDatabase } from "../support/scratch-database";
import { bearer, callRoute, setUpCleanAccessState } from "./access-helpers";
import * as sessionRoute from "@/app/api/v1/session/route";
import { secretOf } from "../support/keys";
import { cliScript } from "../support/scripts";
import { measure } from "@/lib/measure/index";
import { contentReceipt } from "./api-helpers";

setUpCleanAccessState();

const env: Record<string, string> = {};
let cleanup = async () => {};

beforeAll(async () => {
  if (driver === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL!;
    const name = `floorline_cli_${randomBytes(6).toString("hex")}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    cleanup = () => dropScratchDatabase(adminUrl, name);
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), "floorline-cli-"));
    env.FLOORLINE_DATA_DIR = path.join(dir, "data");
    env.DATABASE_URL = "";
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
});

afterAll(async () => {
  await closeDb();
  await cleanup();
});

function cli(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [...cliScript(), ...args], {
    env: { ...process.env, ...env, NODE_OPTIONS: "" },
    input: input ?? "",
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The app opens the database only after the CLI is done with it (one process per embedded folder). */
function useAppDatabase() {
  forgetCredentialsCache();
  setHandle(openDatabase(env.DATABASE_URL ? { url: env.DATABASE_URL } : { dataDir: env.FLOORLINE_DATA_DIR }));
}

describe("npm run floorline", () => {
  let ingestKey = "";
  let keyId = "";

  it("creates the first key on a fresh database, printed once, with --json for scripts", () => {
    const made = cli(["keys", "create", "--name", "ci", "--scopes", "ingest,read", "--json"]);
    expect(made.status, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout);
    expect(key).toMatchObject({ name: "ci", scopes: ["ingest", "read"], revoked_at: null });
    expect(key.key).toMatch(/^fl_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    ingestKey = key.key;
    keyId = key.id;
    const human = cli(["keys", "create", "--name", "reader", "--scopes", "read"]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/fl_[0-9a-f]{16}_/);
  });

  it("creates an operator with the password from stdin, and refuses a duplicate or a short password", () => {
    const made = cli(
      ["operators", "create", "--name", "alice", "--role", "admin", "--password-stdin", "--json"],
      "a long password\n",
    );
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ name: "alice", role: "admin" });
    expect(
      cli(["operators", "create", "--name", "ALICE", "--role", "viewer", "--password-stdin"], "another long one")
        .status,
    ).not.toBe(0);
    expect(cli(["operators", "create", "--name", "bob", "--role", "viewer", "--password-stdin"], "short").status).toBe(
      2,
    );
    // No terminal and no --password-stdin: a clear refusal, not a hang.
    const noTty = cli(["operators", "create", "--name", "carol", "--role", "viewer"]);
    expect(noTty.status).toBe(2);
    expect(noTty.stderr).toContain("--password-stdin");
  });

  it("refuses bad input before touching anything", () => {
    expect(cli(["keys", "create", "--name", "x", "--scopes", "write"]).status).toBe(2);
    expect(cli(["keys", "create", "--scopes", "read"]).status).toBe(2);
    expect(cli(["keys", "revoke", "nope"]).status).toBe(2);
    expect(cli(["frobnicate"]).status).toBe(2);
  });

  it("lists keys without secrets", () => {
    const listed = cli(["keys", "list", "--json"]);
    expect(listed.status, listed.stderr).toBe(0);
    const keys = JSON.parse(listed.stdout);
    expect(keys.map((k: { name: string }) => k.name).sort()).toEqual(["ci", "reader"]);
    expect(listed.stdout).not.toContain(secretOf(ingestKey));
    expect(cli(["keys", "list"]).stdout).toContain("ci");
  });

  it("the app accepts the key and the operator, then refuses the key once revoked", async () => {
    useAppDatabase();
    expect((await callRoute("/api/v1/chains", "GET")).status).toBe(401);
    expect((await callRoute("/api/v1/chains", "GET", { headers: bearer(ingestKey) })).status).toBe(200);
    expect((await callRoute("/api/v1/keys", "GET", { headers: bearer(ingestKey) })).status).toBe(403);
    const signIn = await sessionRoute.POST(
      new Request("http://localhost/api/v1/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "alice", password: "a long password" }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(signIn.status).toBe(201);
    if (driver === "pglite") {
      // The app owns the embedded folder now: the CLI refuses, naming the holder, and writes nothing.
      const refused = cli(["keys", "list"]);
      expect(refused.status).toBe(3);
      expect(refused.stderr).toMatch(/in use by process \d+/);
    }
    await closeDb();

    const revoked = cli(["keys", "revoke", keyId, "--json"]);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout).revoked_at).not.toBeNull();
    useAppDatabase();
    expect((await callRoute("/api/v1/chains", "GET", { headers: bearer(ingestKey) })).status).toBe(401);
  });

  it("re-measures a class on the database itself and prints the comparison", async () => {
    await closeDb();
    const made = cli(["keys", "create", "--name", "remeasure", "--scopes", "ingest", "--json"]);
    expect(made.status, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout).key as string;
    useAppDatabase();
    const source = "Release 3.9.0 (2026-05-02) adds Parquet export and Postgres 17 support; it fixes a leak (#4412).";
    const passes = ["Release 3.9.0 adds Parquet export and Postgres 17 support, fixes leak #4412.", "Various updates."];
    const stored = await callRoute("/api/v1/passes", "POST", {
      headers: bearer(key),
      body: {
        receipts: passes.map((content, i) =>
          contentReceipt("cli-rm", i + 1, content, {
            content_class: "cli-remeasure",
            cache_original: true,
            ...(i === 0 ? { input_content: source } : {}),
          }),
        ),
      },
    });
    expect(stored.status, await stored.clone().text()).toBe(201);
    await closeDb();

    const run = cli(["remeasure", "--class", "cli-remeasure", "--json"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("re-measured 2 of 2 passes of cli-remeasure");
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ content_class: "cli-remeasure", passes: 2, measurable: 2, measured: 2, failed: 0 });
    expect(report.median_after).toBe(
      passes.map((c) => measure(c, { source, format: "any" }).semantic_density_score).reduce((a, b) => a + b) / 2,
    );
    const text = cli(["remeasure", "--class", "cli-remeasure"]);
    expect(text.stdout).toContain("2 of 2 passes re-measured by floorline-facts/4");
    expect(cli(["remeasure"]).status).toBe(2);
  });
});
