// Ways around the access check, tried over raw HTTP against the built app as an attacker
// would: a server action posted signed out or from another site, pages naming nothing
// stored, sign-in guesses in parallel, with forged X-Forwarded-For and spread over names, bad
// API keys in a row, and a redirect target that a browser would read as another site.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, freePort, startApp } from "../support/app-server";
import { floorlineCli } from "../support/keys";
import { actionId, postAction } from "../support/server-actions";

const ADMIN = { name: "alice", password: "alice password 1" };
const VIEWER = { name: "victor", password: "victor password 1" };
const TARGET = { name: "tess", password: "tess password 1" };

test.describe.configure({ mode: "serial" });

let app: AppServer | undefined;
let dir = "";

const cli = (args: string[], input = "") => floorlineCli(path.join(dir, "data"), args, input);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = mkdtempSync(path.join(os.tmpdir(), "floorline-trust-"));
  cli(["operators", "create", "--name", ADMIN.name, "--role", "admin", "--password-stdin"], ADMIN.password);
  cli(["operators", "create", "--name", VIEWER.name, "--role", "viewer", "--password-stdin"], VIEWER.password);
  cli(["operators", "create", "--name", TARGET.name, "--role", "viewer", "--password-stdin"], TARGET.password);
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
  return postAction(`${app!.base}/policies`, id, args, headers);
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

  test("posted from another site it is refused with 403 before it runs, cookie or not", async () => {
    const cookie = await sessionCookie(VIEWER);
    const away: Record<string, string>[] = [
      { cookie, origin: "http://evil.example" },
      { cookie, "sec-fetch-site": "cross-site" },
      { cookie, "sec-fetch-site": "same-site" },
      { cookie, "sec-fetch-site": "same-origin", origin: "http://evil.example" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of away) {
      const response = await callAction(actionId("previewFloorChange"), ["default", floor], headers);
      const text = await response.text();
      const what = JSON.stringify({ ...headers, cookie: Boolean(headers.cookie) });
      expect(response.status, `${what} ${text.slice(0, 300)}`).toBe(403);
      expect(JSON.parse(text).error.code, what).toBe("cross_site_request");
    }
    const own = await callAction(actionId("previewFloorChange"), ["default", floor], {
      cookie,
      origin: app!.base,
      "sec-fetch-site": "same-origin",
    });
    expect(own.status).toBe(200);
    expect(await own.text()).toMatch(/"ok":true/);
  });

  test("the sign-in page's first-admin action makes nothing once operators exist, even from this machine", async () => {
    const create = (headers: Record<string, string> = {}) =>
      postAction(
        `${app!.base}/sign-in`,
        actionId("createFirstAdminOperator"),
        [{ name: "eve", password: "eve password 1" }],
        headers,
      );
    const local = await create();
    const text = await local.text();
    expect(local.status, text.slice(0, 300)).toBe(200);
    expect(text).toMatch(/"ok":false/);
    expect(text).not.toMatch(/"ok":true/);
    expect((await create({ "x-forwarded-for": "203.0.113.9" })).status).toBe(401);
    const away = await create({ origin: "http://evil.example" });
    expect(away.status).toBe(403);
    expect((await away.json()).error.code).toBe("cross_site_request");
    expect((await create({ host: "evil.example" })).status).toBe(403);
    expect((await signIn("eve", "eve password 1")).status).toBe(401);
    // The page offers it to no one here.
    expect(await (await fetch(`${app!.base}/sign-in`)).text()).not.toContain('data-testid="first-admin-offer"');
  });
});

test.describe("sign-in guessing", () => {
  test("200 parallel wrong guesses at one name produce at most five failures", async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => signIn(TARGET.name, `guess number ${i}`)));
    const statuses = answers.map((r) => r.status);
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked, JSON.stringify(statuses)).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBe(200 - checked);
    // Even the right password waits now, from here.
    expect((await signIn(TARGET.name, TARGET.password)).status).toBe(429);
  });

  test("a forged X-Forwarded-For neither resets nor dodges the limit", async () => {
    for (const forged of ["203.0.113.9", "127.0.0.2", "10.0.0.1, 10.0.0.2"]) {
      expect((await signIn(TARGET.name, TARGET.password, { "x-forwarded-for": forged })).status, forged).toBe(429);
      expect((await signIn(TARGET.name, TARGET.password, { "x-real-ip": forged })).status, forged).toBe(429);
    }
  });

  test("six failures under other names from the admin's own address do not lock the admin out", async () => {
    for (let i = 0; i < 6; i++) expect((await signIn(`nobody-${i}`, "wrong password")).status).toBe(401);
    const admin = await signIn(ADMIN.name, ADMIN.password);
    expect(admin.status, await admin.text()).toBe(201);
  });

  test("bad API keys from one address are refused after a few dozen, with Retry-After", async () => {
    const unknown = `fl_0123456789abcdef_${"C".repeat(43)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`${app!.base}/api/v1/chains`, {
        headers: { authorization: `Bearer ${unknown}`, "x-forwarded-for": `198.51.100.${i}` },
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
  });
});

test.describe("honest status codes for pages", () => {
  // Every page of the registry, with a parameter value that names nothing stored.
  const pages = [
    "/",
    "/chains",
    "/chains/demo-schema-truncation",
    "/chains/absent/action-space",
    "/policies?class=summary",
    "/originals",
    "/originals/absent",
    "/traces",
    "/traces/absent",
    "/admin/keys",
    "/admin/operators",
    "/webhooks",
  ];

  test("every page without a session answers 307 to /sign-in, before anything streams", async () => {
    for (const target of pages) {
      const response = await fetch(`${app!.base}${target}`, { redirect: "manual" });
      expect(response.status, target).toBe(307);
      expect(response.headers.get("location"), target).toBe(`/sign-in?next=${encodeURIComponent(target)}`);
      expect(await response.text(), target).not.toContain("NEXT_REDIRECT");
    }
    expect((await fetch(`${app!.base}/sign-in`, { redirect: "manual" })).status).toBe(200);
  });

  test("a page a viewer may not see answers 403; the admin gets it", async () => {
    const viewer = await sessionCookie(VIEWER);
    const admin = await sessionCookie(ADMIN);
    for (const target of ["/admin/keys", "/admin/operators", "/webhooks"]) {
      const refused = await fetch(`${app!.base}${target}`, { headers: { cookie: viewer }, redirect: "manual" });
      expect(refused.status, target).toBe(403);
      const allowed = await fetch(`${app!.base}${target}`, { headers: { cookie: admin }, redirect: "manual" });
      expect(allowed.status, target).toBe(200);
    }
    const read = await fetch(`${app!.base}/chains`, { headers: { cookie: viewer }, redirect: "manual" });
    expect(read.status).toBe(200);
  });

  test("a page's scripts run by nonce, not by 'unsafe-inline'", async () => {
    const viewer = await sessionCookie(VIEWER);
    const nonces = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${app!.base}/chains`, { headers: { cookie: viewer } });
      const policy = response.headers.get("content-security-policy") ?? "";
      const scriptSrc = policy.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
      expect(scriptSrc).not.toContain("unsafe-inline");
      const nonce = /'nonce-([^']+)'/.exec(scriptSrc)?.[1];
      expect(nonce, policy).toBeTruthy();
      nonces.add(nonce!);
      const html = await response.text();
      // Every inline script of Next.js carries the nonce; the theme script is allowed by its hash.
      const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((m) => m[1] ?? "");
      expect(inline.length).toBeGreaterThan(1);
      expect(inline.filter((attrs) => !attrs.includes(`nonce="${nonce}"`)).length).toBeLessThanOrEqual(1);
    }
    expect(nonces.size, "a fresh nonce per answer").toBe(2);
  });
});

test.describe("pages that name nothing stored", () => {
  async function get(target: string, cookie: string) {
    return fetch(`${app!.base}${target}`, { headers: { cookie }, redirect: "manual" });
  }

  test("answer 404 before anything streams, and what is stored still answers 200", async () => {
    const cookie = await sessionCookie(VIEWER);
    const traces = (await (await get("/api/v1/traces?limit=1", cookie)).json()) as { items: { trace_id: string }[] };
    const originals = (await (await get("/api/v1/originals?limit=1", cookie)).json()) as { items: { hash: string }[] };
    const traceId = traces.items[0]!.trace_id;
    const hash = originals.items[0]!.hash;
    const stored = [
      "/chains/demo-schema-truncation",
      "/chains/demo-healthy-orders/action-space",
      `/traces/${encodeURIComponent(traceId)}`,
      `/originals/${hash}`,
    ];
    for (const target of stored) expect((await get(target, cookie)).status, target).toBe(200);
    const absent = [
      "/chains/absent",
      "/chains/absent/action-space",
      "/chains/x/../absent",
      "/traces/absent",
      "/originals/absent",
      `/originals/${"0".repeat(64)}`,
      // Malformed: no hash shape, a NUL, an unpaired surrogate, a very long id.
      "/originals/not-a-hash!",
      "/originals/%00",
      "/traces/%00",
      "/chains/%00",
      "/chains/%00/action-space",
      "/chains/a%ED%A0%80b",
      `/traces/${"x".repeat(4000)}`,
    ];
    for (const target of absent) {
      const response = await get(target, cookie);
      expect(response.status, target.slice(0, 80)).toBe(404);
      await response.body?.cancel();
    }
  });

  test("still show their own not-found page", async ({ browser }) => {
    const context = await browser.newContext();
    const [name, value] = (await sessionCookie(VIEWER)).split("=") as [string, string];
    await context.addCookies([{ name, value, url: app!.base }]);
    const page = await context.newPage();
    for (const [target, shown] of [
      ["/chains/absent", page.getByTestId("chain-waiting")],
      ["/traces/absent", page.getByRole("heading", { name: "No such trace" })],
      ["/originals/absent", page.getByRole("heading", { name: "No such original" })],
    ] as const) {
      const response = await page.goto(`${app!.base}${target}`);
      expect(response?.status(), target).toBe(404);
      await expect(shown, target).toBeVisible();
    }
    await context.close();
  });
});

test.describe("the redirect after sign-in", () => {
  // Each would land on evil.example once a browser reads the href (tab, newline and CR
  // vanish, a backslash is a slash) or once something decodes it again.
  const offsite = [
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "/%09/evil.example",
    "/%0a/evil.example",
    "/%5Cevil.example",
    "/%2F/evil.example",
    "/%252F%252Fevil.example",
    "//evil.example",
    "https://evil.example/",
  ];

  test("a next path that a browser would read as another site is replaced by /", async () => {
    const cookie = await sessionCookie(VIEWER);
    for (const next of offsite) {
      const response = await fetch(`${app!.base}/sign-in?next=${encodeURIComponent(next)}`, { headers: { cookie } });
      const html = await response.text();
      expect(response.status, JSON.stringify(next)).toBe(200);
      expect(html, JSON.stringify(next)).toContain('<a href="/">Continue</a>');
      expect(html, JSON.stringify(next)).not.toMatch(/href="[^"]*evil/);
    }
    const own = await fetch(`${app!.base}/sign-in?next=${encodeURIComponent("/chains?range=1h")}`, {
      headers: { cookie },
    });
    expect(await own.text()).toContain('<a href="/chains?range=1h">Continue</a>');
  });
});
