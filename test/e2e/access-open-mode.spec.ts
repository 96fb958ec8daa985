// When a fresh install (no API key, no operator) asks for nothing, tried over raw HTTP
// against the built app: only requests whose socket peer is loopback, on a server that
// listens on loopback, that came through no proxy. A proxy on the same machine, a server
// bound to every address (by `npm start` or by a bare `next start`), and settings that
// would open the server wider than meant are each refused.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, freePort, spawnApp, startApp } from "../support/app-server";
import { floorlineCli } from "../support/keys";

test.describe.configure({ mode: "serial" });

let dir = "";
let app: AppServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = mkdtempSync(path.join(os.tmpdir(), "floorline-open-"));
  app = await startApp({
    port: Number(process.env.E2E_PORT ?? 0) + 2 || (await freePort()),
    dataDir: path.join(dir, "fresh"),
    env: { LOG_LEVEL: "warn" },
  });
});

test.afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const createKey = (headers: Record<string, string> = {}) =>
  fetch(`${app!.base}/api/v1/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ name: "sneaky", scopes: ["admin"] }),
  });

test("a request from this machine that came through no proxy needs no credential", async () => {
  expect((await fetch(`${app!.base}/api/v1/chains`)).status).toBe(200);
  const session = await (await fetch(`${app!.base}/api/v1/session`)).json();
  expect(session.auth).toBe(false);
});

test("a proxied request from loopback is refused, with how to make the first key", async () => {
  const proxied: Record<string, string>[] = [
    { "x-forwarded-for": "203.0.113.7" },
    { forwarded: "for=203.0.113.7;proto=https" },
    { "x-real-ip": "203.0.113.7" },
  ];
  for (const headers of proxied) {
    const label = Object.keys(headers)[0];
    const chains = await fetch(`${app!.base}/api/v1/chains`, { headers });
    const body = await chains.text();
    expect(chains.status, label).toBe(401);
    expect(body, label).toContain("npm run floorline -- keys create");
    expect((await createKey(headers)).status, label).toBe(401);
    const session = await (await fetch(`${app!.base}/api/v1/session`, { headers })).json();
    expect(session.auth, label).toBe(true);
  }
  // Nothing was created by the refused requests.
  const keys = await (await fetch(`${app!.base}/api/v1/keys`)).json();
  expect(keys.items).toEqual([]);
});

test("a client cannot send the socket header the start script sets", async () => {
  const forged = "x".repeat(32);
  const response = await fetch(`${app!.base}/api/v1/chains`, {
    headers: { "x-floorline-socket": `${forged} 127.0.0.1 127.0.0.1`, "x-forwarded-for": "203.0.113.7" },
  });
  expect(response.status).toBe(401);
});

/** The exit code of a server expected to refuse to start; a server that starts anyway is stopped. */
async function refusal(server: AppServer): Promise<number | null | "still running"> {
  const code = await Promise.race([
    server.exited,
    new Promise<"still running">((r) => setTimeout(() => r("still running"), 60_000)),
  ]);
  if (code === "still running") await server.stop();
  return code;
}

test("npm start on every address asks loopback clients for a credential too", async () => {
  test.setTimeout(120_000);
  const server = await startApp({ dataDir: path.join(dir, "every-address"), env: { HOST: "0.0.0.0" } });
  try {
    const response = await fetch(`${server.base}/api/v1/chains`);
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("npm run floorline -- keys create");
    // No operator exists: the sign-in page says how to make the first one.
    const signIn = await fetch(`${server.base}/sign-in`);
    expect(signIn.status).toBe(200);
    const html = await signIn.text();
    expect(html).toContain('data-testid="no-operator"');
    expect(html).toContain("npm run floorline -- operators create --name admin --role admin");
  } finally {
    await server.stop();
  }
});

test("a bare `next start -H 0.0.0.0` leaves no door open either", async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  // Next.js's own server, not the start script: no socket header, no refusal of wide settings.
  const server = await startApp({
    port,
    dataDir: path.join(dir, "bare-next"),
    env: { HOST: "" },
    command: {
      file: path.join(process.cwd(), "node_modules/.bin/next"),
      args: ["start", "-H", "0.0.0.0", "-p", String(port)],
    },
  });
  try {
    expect((await fetch(`${server.base}/api/v1/chains`)).status).toBe(401);
    const viaBare = await fetch(`${server.base}/api/v1/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "sneaky", scopes: ["admin"] }),
    });
    expect(viaBare.status).toBe(401);
  } finally {
    await server.stop();
  }
});

test("FLOORLINE_AUTH=off on every address refuses to start unless the operator says they understand", async () => {
  test.setTimeout(120_000);
  const refused = await spawnApp({
    dataDir: path.join(dir, "off"),
    env: { HOST: "0.0.0.0", FLOORLINE_AUTH: "off" },
  });
  expect(await refusal(refused)).toBe(1);
  expect(refused.output()).toContain("FLOORLINE_AUTH_OFF_I_UNDERSTAND");

  const allowed = await startApp({
    dataDir: path.join(dir, "off"),
    env: { HOST: "0.0.0.0", FLOORLINE_AUTH: "off", FLOORLINE_AUTH_OFF_I_UNDERSTAND: "1", LOG_LEVEL: "warn" },
  });
  try {
    expect((await fetch(`${allowed.base}/api/v1/chains`)).status).toBe(200);
  } finally {
    await allowed.stop();
  }
});

test("a FLOORLINE_API_TOKEN shorter than 32 characters refuses to start, and is not echoed", async () => {
  test.setTimeout(120_000);
  const token = "tooShort-secret-123";
  const refused = await spawnApp({ dataDir: path.join(dir, "token"), env: { FLOORLINE_API_TOKEN: token } });
  expect(await refusal(refused)).toBe(1);
  expect(refused.output()).toContain("FLOORLINE_API_TOKEN");
  expect(refused.output()).toContain("32");
  expect(refused.output()).not.toContain(token);
});

test("behind a trusted proxy saying https: HSTS and a __Host- Secure cookie; from anyone else, neither", async () => {
  test.setTimeout(180_000);
  const dataDir = path.join(dir, "proxied");
  floorlineCli(
    dataDir,
    ["operators", "create", "--name", "olga", "--role", "admin", "--password-stdin"],
    "olga password 1",
  );
  const server = await startApp({ dataDir, env: { FLOORLINE_TRUSTED_PROXIES: "127.0.0.1", LOG_LEVEL: "warn" } });
  const signIn = (headers: Record<string, string>) =>
    fetch(`${server.base}/api/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ name: "olga", password: "olga password 1" }),
    });
  try {
    const https = { "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.4" };
    const secure = await signIn(https);
    expect(secure.status).toBe(201);
    expect(secure.headers.get("strict-transport-security")).toMatch(/^max-age=\d+/);
    const cookie = secure.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-floorline_session=[^;]+; Path=\/;/);
    expect(cookie).toContain("; Secure");
    expect(cookie).not.toContain("Domain=");
    const page = await fetch(`${server.base}/chains`, {
      headers: { ...https, cookie: cookie.split(";")[0]! },
      redirect: "manual",
    });
    expect(page.status).toBe(200);
    expect(page.headers.get("strict-transport-security")).toMatch(/^max-age=/);

    const plain = await signIn({ "x-forwarded-for": "198.51.100.5" });
    expect(plain.headers.get("strict-transport-security")).toBeNull();
    expect(plain.headers.get("set-cookie")).toMatch(/^floorline_session=/);
    expect(plain.headers.get("set-cookie")).not.toContain("Secure");

    // 127.0.0.2 is this machine too, but not the trusted proxy: its "https" is only a claim.
    const claimed = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const body = JSON.stringify({ name: "olga", password: "olga password 1" });
      const req = http.request(
        `${server.base}/api/v1/session`,
        {
          method: "POST",
          localAddress: "127.0.0.2",
          headers: { "content-type": "application/json", "x-forwarded-proto": "https", "content-length": body.length },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(claimed.statusCode).toBe(201);
    expect(claimed.headers["strict-transport-security"]).toBeUndefined();
    expect(String(claimed.headers["set-cookie"])).toMatch(/^floorline_session=/);
    expect(String(claimed.headers["set-cookie"])).not.toContain("Secure");
  } finally {
    await server.stop();
  }
});
