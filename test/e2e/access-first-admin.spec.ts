// "The first hour" of issue 42, against built apps over real HTTP and in Chromium: a fresh
// install whose first API key turns access control on while no operator exists. The keys
// page and the key's answer say so; from this machine, every page leads to the sign-in page,
// which offers the first admin, and then sign-in works as usual. A request from elsewhere (a
// proxy, another site, another machine) is never offered it. The CLI works beside the running
// server, given the same --data-dir as `npm start`, and on its own once the server stops.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, freePort, startApp } from "../support/app-server";
import { fillDataFolder } from "../support/data-folders";
import { floorlineCli } from "../support/keys";
import { cliScript } from "../support/scripts";
import { actionId, postAction } from "../support/server-actions";

test.describe.configure({ mode: "serial" });

const ROOT = { name: "root", password: "root password 1" };

let dir = "";
let app: AppServer | undefined;
/** The server's data folder, relative to the project folder, as a user would type it for both commands. */
let dataDir = "";
/** Where FLOORLINE_DATA_DIR points: --data-dir must win over it, for the server and the CLI alike. */
let decoy = "";

/** `npm run floorline -- <args> --data-dir <dataDir>`, run from the project folder as npm runs it. */
function cli(args: string[], input = "") {
  const result = spawnSync(process.execPath, [...cliScript(), ...args, "--data-dir", dataDir], {
    cwd: process.cwd(),
    env: { ...process.env, FLOORLINE_DATA_DIR: decoy, DATABASE_URL: "", NODE_OPTIONS: "" },
    input,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function cliJson<T>(args: string[], input = ""): T {
  const result = cli([...args, "--json"], input);
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** The CLI on another folder, from wherever the test runs (an absolute --data-dir). */
function cliJsonIn(folder: string, args: string[]): unknown {
  const result = spawnSync(process.execPath, [...cliScript(), ...args, "--json", "--data-dir", folder], {
    env: { ...process.env, DATABASE_URL: "", NODE_OPTIONS: "" },
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

const createAdmin = (base: string, input: unknown, headers: Record<string, string> = {}) =>
  postAction(`${base}/sign-in`, actionId("createFirstAdminOperator"), [input], headers);

/** A GET with headers fetch will not send as given (Host), on a socket from `localAddress`. */
function rawGet(url: string, headers: Record<string, string>, localAddress?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(url, { headers, localAddress }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = mkdtempSync(path.join(os.tmpdir(), "floorline-first-hour-"));
  const folder = path.join(dir, "data");
  fillDataFolder(folder);
  dataDir = path.relative(process.cwd(), folder);
  decoy = path.join(dir, "decoy");
  app = await startApp({ dataDir: decoy, args: ["--data-dir", dataDir], env: { LOG_LEVEL: "warn" } });
});

test.afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the first key, made on the keys page, says that it turns access control on", async ({ page }) => {
  const base = app!.base;
  await page.goto(`${base}/admin/keys`);
  await expect(page.getByTestId("first-key-warning")).toContainText("turns access control on");
  await page.waitForLoadState("networkidle");
  await page.getByLabel("Name").fill("agent-1");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key-value")).toHaveText(/^fl_/);
  const notice = page.getByTestId("new-key-notice");
  await expect(notice).toContainText("Access control is now on");
  await expect(notice).toContainText("npm run floorline -- operators create");
  await expect(page.getByTestId("keys-table")).toContainText("agent-1");
  // And it is on: this machine now needs a credential too.
  expect((await fetch(`${base}/api/v1/chains`)).status).toBe(401);
  const redirected = await fetch(`${base}/`, { redirect: "manual" });
  expect(redirected.status).toBe(307);
  expect(redirected.headers.get("location")).toBe("/sign-in?next=%2F");
});

test("a request from elsewhere is never offered the first admin, nor can make one", async () => {
  const base = app!.base;
  expect(await (await fetch(`${base}/sign-in`)).text()).toContain('data-testid="first-admin-offer"');
  const proxied = await (await fetch(`${base}/sign-in`, { headers: { "x-forwarded-for": "203.0.113.9" } })).text();
  expect(proxied).not.toContain('data-testid="first-admin-offer"');
  expect(proxied).toContain('data-testid="no-operator"');
  const forgedHost = await rawGet(`${base}/sign-in`, { host: "evil.example" });
  expect(forgedHost.status).toBe(403);
  expect(forgedHost.text).not.toContain("first-admin-offer");

  const input = { name: "mallory", password: "mallory password" };
  expect((await createAdmin(base, input, { "x-forwarded-for": "203.0.113.9" })).status).toBe(401);
  expect((await createAdmin(base, input, { "x-real-ip": "203.0.113.9" })).status).toBe(401);
  const away: Record<string, string>[] = [{ origin: "http://evil.example" }, { "sec-fetch-site": "cross-site" }];
  for (const headers of away) {
    const refused = await createAdmin(base, input, headers);
    expect(refused.status, JSON.stringify(headers)).toBe(403);
    expect((await refused.json()).error.code).toBe("cross_site_request");
  }
  // Through the running server, the CLI sees that nothing was made.
  expect(cliJson<unknown[]>(["operators", "list"])).toEqual([]);
});

test("from this machine, a page leads to the first admin, and then to signing in as usual", async ({ page }) => {
  const base = app!.base;
  await page.goto(`${base}/policies`);
  await expect(page).toHaveURL(`${base}/sign-in?next=%2Fpolicies`);
  await expect(page.getByRole("heading", { name: "Create the first operator", level: 1 })).toBeVisible();
  await expect(page.getByTestId("first-admin-offer")).toContainText("server's own machine");
  await page.waitForLoadState("networkidle");
  await page.getByLabel("Name").fill(ROOT.name);
  await page.getByLabel("Password (10 characters or more)").fill(ROOT.password);
  await page.getByLabel("Password again").fill("not the same one");
  await page.getByRole("button", { name: "Create admin" }).click();
  await expect(page.getByTestId("first-admin-error")).toContainText("differ");
  await page.getByLabel("Password again").fill(ROOT.password);
  await page.getByRole("button", { name: "Create admin" }).click();
  await expect(page.getByTestId("first-admin-created")).toContainText(ROOT.name);
  await expect(page.getByLabel("Name")).toHaveValue(ROOT.name);
  await page.getByLabel("Password").fill(ROOT.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/policies`);
  await expect(page.getByRole("heading", { name: "Policies", level: 1 })).toBeVisible();
  await expect(page.getByTestId("session-menu")).toContainText("root (admin)");
});

test("once an operator exists, the offer is gone, even from this machine", async () => {
  const base = app!.base;
  const html = await (await fetch(`${base}/sign-in`)).text();
  expect(html).not.toContain('data-testid="first-admin-offer"');
  expect(html).not.toContain('data-testid="no-operator"');
  const late = await createAdmin(base, { name: "late", password: "late password 1" });
  expect(late.status).toBe(200);
  expect(await late.text()).toMatch(/"ok":false/);
  expect(cliJson<{ name: string; role: string }[]>(["operators", "list"]).map((o) => [o.name, o.role])).toEqual([
    [ROOT.name, "admin"],
  ]);
});

// Each request after a CLI run on a connection of its own: the CLI's start can leave a pooled
// one idle for as long as the server keeps it (10 s), and a request sent on it as the server
// closes it fails with "other side closed" (seen once in CI).
const FRESH = { connection: "close" };

test("the CLI goes through the running server, given the same --data-dir", async () => {
  const base = app!.base;
  const record = path.join(dataDir, "floorline.server");
  expect(statSync(record).mode & 0o777).toBe(0o600);
  expect(existsSync(path.join(decoy, "floorline.lock")), "the CLI never opened FLOORLINE_DATA_DIR").toBe(false);

  const key = cliJson<{ id: string; key: string; created_by: string; notice: string | null }>([
    "keys",
    "create",
    "--name",
    "from-cli",
    "--scopes",
    "read",
  ]);
  expect(key).toMatchObject({ created_by: "cli", notice: null });
  expect(
    (await fetch(`${base}/api/v1/chains`, { headers: { authorization: `Bearer ${key.key}`, ...FRESH } })).status,
  ).toBe(200);
  expect(cliJson<{ name: string }[]>(["keys", "list"]).map((k) => k.name)).toEqual(["from-cli", "agent-1"]);

  cliJson(["operators", "create", "--name", "vera", "--role", "viewer", "--password-stdin"], "vera password 1\n");
  const signIn = await fetch(`${base}/api/v1/session`, {
    method: "POST",
    headers: { "content-type": "application/json", ...FRESH },
    body: JSON.stringify({ name: "vera", password: "vera password 1" }),
  });
  expect(signIn.status).toBe(201);
  const taken = cli(["operators", "create", "--name", "VERA", "--role", "viewer", "--password-stdin"], "x password 12");
  expect(taken.status).toBe(2);
  expect(taken.stderr).toContain("already exists");

  expect(cliJson<{ revoked_at: string | null }>(["keys", "revoke", key.id]).revoked_at).not.toBeNull();
  expect(
    (await fetch(`${base}/api/v1/chains`, { headers: { authorization: `Bearer ${key.key}`, ...FRESH } })).status,
  ).toBe(401);
});

test("after the server stops, the CLI opens the folder itself", async () => {
  await app!.stop();
  app = undefined;
  expect(existsSync(path.join(dataDir, "floorline.server"))).toBe(false);
  const operators = cliJson<{ name: string }[]>(["operators", "list"]);
  expect(operators.map((o) => o.name).sort()).toEqual([ROOT.name, "vera"]);
});

/** An address of this machine that is not loopback, if it has one: a real peer from elsewhere. */
function outsideAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
}

test("a client on another address gets no offer, and the CLI's token is nothing to it", async () => {
  test.setTimeout(180_000);
  const outside = outsideAddress();
  test.skip(!outside, "this machine has no address but loopback");
  const folder = path.join(dir, "every-address");
  floorlineCli(folder, ["keys", "create", "--name", "agent", "--scopes", "ingest"]);
  const port = await freePort();
  const server = await startApp({
    port,
    dataDir: folder,
    env: { HOST: "0.0.0.0", FLOORLINE_ALLOWED_HOSTS: `${outside},127.0.0.1`, LOG_LEVEL: "warn" },
  });
  try {
    const there = `http://${outside}:${port}`;
    const page = await rawGet(`${there}/sign-in`, {}, outside);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('data-testid="first-admin-offer"');
    expect(page.text).toContain('data-testid="no-operator"');
    expect((await createAdmin(there, { name: "mallory", password: "mallory password" })).status).toBe(401);
    // The CLI reaches the server over loopback all the same, and its token counts there only.
    expect((cliJsonIn(folder, ["keys", "list"]) as { name: string }[]).map((k) => k.name)).toEqual(["agent"]);
    const token = JSON.parse(readFileSync(path.join(folder, "floorline.server"), "utf8")).token as string;
    const fromOutside = await fetch(`${there}/api/v1/keys`, { headers: { authorization: `Bearer ${token}` } });
    expect(fromOutside.status).toBe(401);
    expect(cliJsonIn(folder, ["operators", "list"])).toEqual([]);
  } finally {
    await server.stop();
  }
});
