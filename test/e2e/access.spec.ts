// Access control in a real Chromium against a server with operators (so auth is on): sign in,
// see the pages (with the security headers and no CSP violation), sign out and be sent back;
// a viewer cannot save a floor; an admin makes a key shown once; and a page on another origin
// (a second loopback port, then a DNS-rebinding name) cannot write, signed in or not.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { type Browser, type Page, chromium, expect, test } from "@playwright/test";
import { type AppServer, freePort, startApp } from "../support/app-server";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { floorlineCli, secretOf } from "../support/keys";

// Servers of this spec's own (Floorline with operators, the attacker's page) on free ports.
let PORT = 0;
let base = "";
const openBase = `http://127.0.0.1:${process.env.E2E_PORT}`;
const ADMIN = { name: "alice", password: "alice password 1" };
const VIEWER = { name: "victor", password: "victor password 1" };

test.describe.configure({ mode: "serial" });

let server: AppServer | undefined;
let dir = "";
let readKey = "";

const cli = (args: string[], input = "") => floorlineCli(path.join(dir, "data"), args, input);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = mkdtempSync(path.join(os.tmpdir(), "floorline-access-"));
  // The CLI writes the first credentials before the server owns the folder.
  cli(["operators", "create", "--name", ADMIN.name, "--role", "admin", "--password-stdin"], ADMIN.password);
  cli(["operators", "create", "--name", VIEWER.name, "--role", "viewer", "--password-stdin"], VIEWER.password);
  readKey = JSON.parse(cli(["keys", "create", "--name", "checker", "--scopes", "read,admin", "--json"])).key;
  server = await startApp({ dataDir: path.join(dir, "data"), env: { FLOORLINE_DEMO: "1" } });
  PORT = server.port;
  base = server.base;
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Console errors about the Content-Security-Policy, collected for the whole test. */
function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
  });
  return violations;
}

async function signIn(page: Page, who: { name: string; password: string }, next = "/") {
  await page.goto(`${base}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Name").fill(who.name);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}${next}`);
}

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${base}${p}`, { ...init, headers: { authorization: `Bearer ${readKey}`, ...init.headers } });

test("sign in, see every page with the security headers, sign out and be sent to sign-in", async ({ page }) => {
  const violations = watchCsp(page);
  const first = await page.goto(`${base}/chains`);
  await expect(page).toHaveURL(`${base}/sign-in?next=%2Fchains`);
  expect(first!.status()).toBe(200);
  // The form signs in from the browser once hydrated; a click before that submits nothing.
  await page.waitForLoadState("networkidle");
  await page.getByLabel("Name").fill(ADMIN.name);
  await page.getByLabel("Password").fill("wrong password!");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("sign-in-error")).toContainText("wrong");
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/chains`);
  await expect(page.getByRole("heading", { name: "Chains", level: 1 })).toBeVisible();
  await expect(page.getByTestId("session-menu")).toContainText("alice (admin)");
  for (const admin of ["Webhooks", "Keys", "Operators"])
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: admin })).toBeVisible();
  // Operators exist here: the sign-in page does not say how to make the first.
  expect(await (await fetch(`${base}/sign-in`)).text()).not.toContain('data-testid="no-operator"');

  for (const [p, heading] of [
    ["/", "Overview"],
    ["/chains/demo-schema-truncation", "demo-schema-truncation"],
    ["/policies?class=summary", "Policies"],
    ["/originals", "Originals"],
    ["/traces", "Traces"],
    ["/admin/keys", "API keys"],
    ["/admin/operators", "Operators"],
    ["/webhooks", "Webhooks"],
  ] as const) {
    const response = await page.goto(`${base}${p}`);
    expect(response!.status(), p).toBe(200);
    const headers = response!.headers();
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("same-origin");
    await expect(page.getByRole("heading", { name: heading, level: 1 }).first()).toBeVisible();
  }
  // The chain page's charts draw (scripts ran under the CSP) and its live feed is open with the cookie.
  await page.goto(`${base}/chains/demo-schema-truncation`);
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  const feeds = await page.evaluate(async () => ({
    exportStatus: (await fetch("/api/v1/exports/chains?format=json")).status,
    chains: (await fetch("/api/v1/chains")).status,
  }));
  expect(feeds).toEqual({ exportStatus: 200, chains: 200 });

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/sign-in/);
  await page.goto(`${base}/policies`);
  await expect(page).toHaveURL(`${base}/sign-in?next=%2Fpolicies`);
  expect(await page.evaluate(async () => (await fetch("/api/v1/chains")).status)).toBe(401);
  expect(violations).toEqual([]);
});

test("a viewer sees the policies but cannot save a floor, nor open admin pages", async ({ page }) => {
  const before = await (await api("/api/v1/policies/summary")).json();
  await signIn(page, VIEWER, "/policies?class=summary");
  await expect(page.getByTestId("policy-read-only")).toBeVisible();
  await expect(page.getByRole("button", { name: /Save as version/ })).toBeDisabled();
  // Admin pages are not offered in the navigation to a viewer.
  await expect(page.getByTestId("session-menu")).toContainText("(viewer)");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Traces" })).toBeVisible();
  for (const admin of ["Webhooks", "Keys", "Operators"])
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: admin })).toHaveCount(0);
  const put = await page.evaluate(async () => {
    const r = await fetch("/api/v1/policies/summary", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ min_size_bytes: 1, min_semantic_density: 0.1, max_pass_number: 9 }),
    });
    return { status: r.status, code: (await r.json()).error?.code };
  });
  expect(put).toEqual({ status: 403, code: "insufficient_scope" });
  // Refused before the page streams: a real 403, and nothing of the page renders.
  expect((await page.goto(`${base}/admin/keys`))!.status()).toBe(403);
  await expect(page.getByTestId("forbidden")).toBeVisible();
  await expect(page.getByTestId("keys-table")).toHaveCount(0);
  await page.goto(`${base}/webhooks`);
  await expect(page.getByTestId("forbidden")).toBeVisible();
  const after = await (await api("/api/v1/policies/summary")).json();
  expect(after.versions.length).toBe(before.versions.length);
});

test("an admin saves a floor as themselves, and makes a key that is shown once", async ({ page }) => {
  await signIn(page, ADMIN, "/policies?class=summary");
  await page.getByLabel("Min semantic density").fill("0.33");
  await page.getByRole("button", { name: /Save as version/ }).click();
  // Every floor save goes through the one confirmation, which asks for a note.
  await page.getByTestId("floor-change-note").fill("tighter for the e2e admin");
  await page.getByRole("button", { name: /Confirm: save as version/ }).click();
  await expect(page.getByTestId("floor-change-status")).toContainText("Saved as version");
  await page.reload();
  await expect(page.getByTestId("version-author").first()).toHaveText("alice");

  await page.goto(`${base}/admin/keys`);
  await page.getByLabel("Name").fill("e2e-agent");
  await page.getByRole("button", { name: "Create key" }).click();
  const value = page.getByTestId("new-key-value");
  await expect(value).toHaveText(/^fl_[0-9a-f]{16}_/);
  const key = (await value.textContent())!;
  await expect(page.getByRole("button", { name: /^Copy key/ })).toBeVisible();
  const use = () => fetch(`${base}/api/v1/chains`, { headers: { authorization: `Bearer ${key}` } });
  expect((await use()).status).toBe(200);
  await page.reload();
  expect(await page.content()).not.toContain(secretOf(key));
  page.once("dialog", (d) => void d.accept());
  await page.locator("tr", { hasText: "e2e-agent" }).getByRole("button", { name: "Revoke" }).click();
  await expect(page.locator("tr", { hasText: "e2e-agent" })).toContainText("revoked");
  expect((await use()).status).toBe(401);
});

// The attacker's page: a no-CORS POST (no preflight, no content type or text/plain) to each target.
function attackerPage(targets: string[]): string {
  const receipt = (chain: string) => ({
    chain_id: chain,
    pass_id: `${chain}.p1`,
    pass_number: 1,
    current_content_hash: "x",
    current_size_bytes: 1,
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 1,
  });
  const script = `
    const targets = ${JSON.stringify(targets)};
    const body = (t, i) => JSON.stringify(${JSON.stringify(receipt("evil-chain"))});
    const policy = JSON.stringify({ min_size_bytes: 1, min_semantic_density: 0.01, max_pass_number: 99 });
    Promise.allSettled(targets.flatMap((t) => [
      fetch(t + "/api/v1/passes", { method: "POST", mode: "no-cors", credentials: "include", body: new Blob([body()]) }),
      fetch(t + "/api/v1/passes", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: body() }),
      fetch(t + "/api/v1/policies/summary", { method: "PUT", mode: "no-cors", credentials: "include", body: policy }),
      fetch(t + "/api/v1/policies/summary", { method: "PUT", credentials: "include", headers: { "content-type": "application/json" }, body: policy }),
    ])).then(() => { document.title = "done"; });`;
  return `<!doctype html><title>attacker</title><script>${script}</script>`;
}

test("a page on another origin cannot write, signed in or not, nor through a rebinding name", async ({ page }) => {
  const before = await (await api("/api/v1/policies/summary")).json();
  const attacker = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(attackerPage([base, openBase]));
  });
  const ATTACKER_PORT = await freePort();
  await new Promise<void>((r) => attacker.listen(ATTACKER_PORT, "127.0.0.1", r));
  let rebinding: Browser | undefined;
  try {
    // Signed in on Floorline: the Lax cookie goes along to 127.0.0.1 from another port (same site).
    await signIn(page, ADMIN, "/");
    await page.goto(`http://127.0.0.1:${ATTACKER_PORT}/`);
    await expect(page).toHaveTitle("done");

    // DNS rebinding: evil.test resolves to 127.0.0.1, so its pages are "same-origin" with us.
    rebinding = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        ...CHROMIUM_ARGS.filter((a) => !a.startsWith("--host-resolver-rules")),
        "--host-resolver-rules=MAP evil.test 127.0.0.1, MAP * ~NOTFOUND",
      ],
    });
    const evil = await rebinding.newPage();
    for (const target of [`http://evil.test:${PORT}`, `http://evil.test:${process.env.E2E_PORT}`]) {
      await evil.goto(`${target}/chains`);
      await expect(evil.getByTestId("forbidden")).toBeVisible();
      await expect(evil.getByText("demo-healthy-orders")).toHaveCount(0);
      const tries = await evil.evaluate(async () => {
        const read = await fetch("/api/v1/chains");
        const write = await fetch("/api/v1/passes", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            chain_id: "evil-chain",
            pass_id: "evil-chain.p2",
            pass_number: 2,
            current_content_hash: "x",
            current_size_bytes: 1,
            is_parseable: true,
            schema_valid: true,
            semantic_density_score: 1,
          }),
        });
        return [read.status, (await read.json()).error?.code, write.status];
      });
      expect(tries, target).toEqual([403, "host_not_allowed", 403]);
    }
  } finally {
    await rebinding?.close();
    await new Promise((r) => attacker.close(r));
  }
  // Nothing was written on either server.
  expect((await api("/api/v1/chains/evil-chain")).status).toBe(404);
  expect((await fetch(`${openBase}/api/v1/chains/evil-chain`)).status).toBe(404);
  const after = await (await api("/api/v1/policies/summary")).json();
  expect(after.versions.length).toBe(before.versions.length);
  // The secret is never logged.
  const secret = secretOf(readKey);
  expect(secret.length).toBeGreaterThan(20);
  expect(server!.output()).not.toContain(secret);
});
