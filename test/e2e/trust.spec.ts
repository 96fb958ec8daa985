// Ways around the access check, tried over raw HTTP against the built app as an attacker
// would: a server action posted signed out, sign-in guesses in parallel and spread over
// names, a redirect target that a browser would read as another site.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, startApp } from "../support/app-server";
import { floorlineCli } from "../support/keys";
import { freePort } from "../support/server-process";

const ADMIN = { name: "alice", password: "alice password 1" };
const VIEWER = { name: "victor", password: "victor password 1" };

test.describe.configure({ mode: "serial" });

let app: AppServer | undefined;
let dir = "";

const cli = (args: string[], input = "") => floorlineCli(path.join(dir, "data"), args, input);

/** The id Next.js gave a server action in this build: what any past viewer of its page holds. */
function actionId(exportedName: string): string {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  const manifest = JSON.parse(readFileSync(path.join(dist, "server", "server-reference-manifest.json"), "utf8"));
  const entry = Object.entries(manifest.node as Record<string, { exportedName: string }>).find(
    ([, v]) => v.exportedName === exportedName,
  );
  if (!entry) throw new Error(`no server action ${exportedName} in the build`);
  return entry[0];
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = mkdtempSync(path.join(os.tmpdir(), "floorline-trust-"));
  cli(["operators", "create", "--name", ADMIN.name, "--role", "admin", "--password-stdin"], ADMIN.password);
  cli(["operators", "create", "--name", VIEWER.name, "--role", "viewer", "--password-stdin"], VIEWER.password);
  app = await startApp({
    port: Number(process.env.E2E_PORT ?? 0) + 1 || (await freePort()),
    dataDir: path.join(dir, "data"),
    env: { FLOORLINE_DEMO: "1", LOG_LEVEL: "warn" },
  });
});

test.afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function signIn(name: string, password: string, headers: Record<string, string> = {}) {
  return fetch(`${app!.base}/api/v1/session`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ name, password }),
  });
}

async function sessionCookie(user: { name: string; password: string }): Promise<string> {
  const response = await signIn(user.name, user.password);
  expect(response.status).toBe(201);
  return /floorline_session=[^;]+/.exec(response.headers.get("set-cookie") ?? "")![0];
}

function callAction(id: string, args: unknown[], headers: Record<string, string> = {}) {
  return fetch(`${app!.base}/policies`, {
    method: "POST",
    headers: { "next-action": id, "content-type": "text/plain;charset=UTF-8", accept: "text/x-component", ...headers },
    body: JSON.stringify(args),
  });
}

test.describe("server actions", () => {
  const floor = { min_size_bytes: 0, min_semantic_density: 0.5, max_pass_number: 9 };

  test("the floor preview posted signed out is refused and reveals nothing", async () => {
    const response = await callAction(actionId("previewFloorChange"), ["default", floor]);
    const text = await response.text();
    expect(response.status, text.slice(0, 300)).toBe(401);
    expect(text).not.toMatch(/"chains":\d/);
  });

  test("a signed-in viewer still gets the preview", async () => {
    const response = await callAction(actionId("previewFloorChange"), ["default", floor], {
      cookie: await sessionCookie(VIEWER),
    });
    const text = await response.text();
    expect(response.status, text.slice(0, 300)).toBe(200);
    expect(text).toMatch(/"ok":true/);
  });
});
