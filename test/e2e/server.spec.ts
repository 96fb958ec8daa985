// The HTTP server in front of Next.js (scripts/start.ts): what it answers itself, the pages
// every site needs, one server per embedded data folder, and a kill -9 in the middle of
// ingest losing no acknowledged receipt. Real processes, real signals.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, freePort, receipt, spawnApp, startApp } from "../support/app-server";

const base = `http://127.0.0.1:${process.env.E2E_PORT}`;

/** node:http, since fetch refuses TRACE and CONNECT. */
function raw(
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/`, { method, path: target, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test.describe("answered before Next.js", () => {
  test("TRACE is a 405: in the contract's JSON on /api, a page elsewhere", async () => {
    const api = await raw("TRACE", "/api/v1/chains");
    expect(api.status).toBe(405);
    expect(api.headers["content-type"]).toContain("application/json");
    expect(JSON.parse(api.body)).toEqual({ error: { code: "method_not_allowed", message: expect.any(String) } });
    expect(api.headers.allow).toContain("GET");
    const page = await raw("TRACE", "/chains");
    expect(page.status).toBe(405);
    expect(page.headers["content-type"]).toContain("text/html");
  });

  test("CONNECT is a 405 in the contract's JSON, not a dropped connection", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(process.env.E2E_PORT), "127.0.0.1");
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (c) => (text += c));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.write("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    });
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error.code).toBe("method_not_allowed");
  });

  test("methods HTTP does not know, and request targets that are not paths, are 4xx", async () => {
    // Node's HTTP parser refuses methods it does not know with a 400 before any handler.
    for (const method of ["TRACK", "PROPFIND", "BREW"]) {
      const answer = await raw(method, "/api/v1/chains").catch(() => ({ status: 400 }));
      expect(answer.status, method).toBeGreaterThanOrEqual(400);
      expect(answer.status, method).toBeLessThan(500);
    }
    const absolute = await raw("GET", "http://elsewhere.example/chains");
    expect(absolute.status).toBe(400);
    const absoluteApi = await raw("GET", "http://elsewhere.example/api/v1/chains");
    expect(absoluteApi.status).toBe(400);
    expect(JSON.parse(absoluteApi.body).error.code).toBe("bad_request");
  });

  test("malformed HTTP is a 400 in the error shape, never a dropped connection or a 500", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(process.env.E2E_PORT), "127.0.0.1");
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (c) => (text += c));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.write("GET /api/v1/chains HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n");
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error.code).toBe("bad_request");
  });

  test("a form post to a page is a 405, not a server action Next.js fails to parse", async () => {
    const post = (target: string, headers: Record<string, string> = {}) =>
      fetch(`${base}${target}`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=x", ...headers },
        body: "',p",
      });
    for (const target of ["/chains", "/", "/no-such-page", "/originals/%2e%2e/content", "/chains/a/%2E%2E/b"]) {
      const answer = await post(target);
      expect(answer.status, target).toBe(405);
      expect(answer.headers.get("allow")).toBe("GET, HEAD");
      expect(answer.headers.get("content-type")).toContain("text/html");
    }
    // Route handlers and the API read their own bodies; a server action call still reaches Next.js.
    expect((await post("/v1/retrieve")).status).toBe(415);
    const api = await post("/api/v1/passes");
    expect(api.status).toBe(415);
    expect((await api.json()).error.code).toBeTruthy();
    const action = await post("/policies", { "next-action": "not-an-action" });
    expect(action.status).toBeGreaterThanOrEqual(400);
    expect(action.status).toBeLessThan(500);
  });

  test("paths that are not valid percent-encoded UTF-8 are 404s, never 500s", async () => {
    for (const target of ["/chains/%FF", "/traces/%C0%AF", "/originals/%E2%82", "/%FF", "/policies/%E2%82%"]) {
      const answer = await raw("GET", target);
      expect(answer.status, target).toBe(404);
      expect(answer.headers["content-type"]).toContain("text/html");
    }
    for (const target of ["/api/v1/chains/%FF", "/api/v1/originals/%C0%AF", "/api/%E2%82"]) {
      const answer = await raw("GET", target);
      expect(answer.status, target).toBe(404);
      expect(JSON.parse(answer.body).error.code).toBe("not_found");
    }
  });

  test("every answer carries a request id: a sane one sent is kept, anything else replaced", async () => {
    const kept = await raw("GET", "/api/v1/health", { "x-request-id": "agent-run-42.p3" });
    expect(kept.headers["x-request-id"]).toBe("agent-run-42.p3");
    const replaced = await raw("GET", "/api/v1/health", { "x-request-id": "bad id\twith spaces" });
    expect(replaced.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const minted = await raw("TRACE", "/chains");
    expect(minted.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

test.describe("pages every site needs", () => {
  test("an unknown page is a friendly 404 inside the layout", async ({ page }) => {
    const response = await page.goto("/no/such/page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  });

  test("the favicon is served, and pages link an icon", async ({ page }) => {
    const favicon = await raw("GET", "/favicon.ico");
    expect(favicon.status).toBe(200);
    expect(favicon.headers["content-type"]).toContain("image/");
    await page.goto("/");
    await expect(page.locator('link[rel="icon"]').first()).toHaveAttribute("href", /icon|favicon/);
  });
});

test.describe("one server per embedded data folder", () => {
  test("a second server and db:migrate refuse naming the owner; kill -9 mid-ingest loses no acknowledged receipt", async () => {
    test.setTimeout(300_000);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-folder-"));
    const port = await freePort();
    const servers: AppServer[] = [];
    try {
      // A truly empty folder: the first start makes the database (initdb, migrations) under its lock.
      const first = await startApp({ port, dataDir, from: "empty" });
      servers.push(first);
      const pid = first.child.pid!;

      const second = await spawnApp({ dataDir, from: "empty" });
      servers.push(second);
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`The data folder ${dataDir} is in use by process ${pid}`);

      const migrate = spawnSync(path.join(process.cwd(), "node_modules/.bin/tsx"), ["scripts/migrate.ts"], {
        env: { ...process.env, DATABASE_URL: "", FLOORLINE_DATA_DIR: dataDir },
        encoding: "utf8",
      });
      expect(migrate.status).toBe(1);
      expect(migrate.stderr).toContain(`is in use by process ${pid}`);

      // Writers post batches until the process dies under them; what was acknowledged must
      // survive the crash.
      const acknowledged: string[] = [];
      let killed = false;
      const writer = async (w: number) => {
        for (let b = 0; !killed; b++) {
          const receipts = Array.from({ length: 25 }, (_, i) => receipt(`kill-w${w}-b${b}`, i + 1));
          try {
            const res = await fetch(`${first.base}/api/v1/passes`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ receipts }),
            });
            if (res.status === 201) acknowledged.push(...receipts.map((r) => r.pass_id));
            else expect(res.status).toBeLessThan(500);
          } catch {
            return; // the connection died with the process
          }
        }
      };
      const writers = [writer(1), writer(2)];
      while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 20));
      first.child.kill("SIGKILL");
      killed = true;
      await first.exited;
      await Promise.all(writers);
      // The dead owner's lock is still there: the restart must take it over.
      expect(JSON.parse(readFileSync(path.join(dataDir, "floorline.lock"), "utf8")).pid).toBe(pid);

      const again = await startApp({ port, dataDir, from: "empty" });
      servers.push(again);
      expect(JSON.parse(readFileSync(path.join(dataDir, "floorline.lock"), "utf8")).pid).toBe(again.child.pid);
      const chains = new Set(acknowledged.map((id) => id.slice(0, id.lastIndexOf("."))));
      const stored = new Set<string>();
      for (const chain of chains) {
        const body = await (await fetch(`${again.base}/api/v1/chains/${chain}`)).json();
        for (const p of body.passes as { pass_id: string }[]) {
          expect(stored.has(p.pass_id), `${p.pass_id} stored twice`).toBe(false);
          stored.add(p.pass_id);
        }
      }
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      expect(await again.stop()).toBe(0);
    } finally {
      // Whatever a failure left running; a no-op for the servers that exited.
      for (const server of servers) await server.stop("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

test.describe("when the database is down", () => {
  test("pages say the database is the cause and what to do; the API answers 503 with Retry-After", async ({ page }) => {
    test.setTimeout(180_000);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-down-"));
    const port = await freePort();
    // Nothing listens on port 1: every connection attempt is refused.
    const server = await spawnApp({ port, dataDir, env: { DATABASE_URL: "postgres://floorline:x@127.0.0.1:1/none" } });
    try {
      // Until the app has started it says so; then the database's own 503 follows.
      let health: Response | undefined;
      for (let i = 0; i < 240 && server.child.exitCode === null; i++) {
        health = await fetch(`${server.base}/api/v1/health`).catch(() => undefined);
        if (health && !(await health.clone().text()).includes("Floorline is starting")) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(health?.status).toBe(503);
      const api = await fetch(`${server.base}/api/v1/chains`, { headers: { "x-request-id": "down-check-1" } });
      expect(api.status).toBe(503);
      expect(api.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await api.json()).error.code).toBe("database_unavailable");
      // The app says why in one line (once a minute per cause: the workers may have said it
      // first), and logs the request. The request line is written when the response finishes,
      // which can be just after the client has read it: wait for the lines rather than read
      // them once.
      const lines = () =>
        server
          .output()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l));
      await expect.poll(lines, { timeout: 10_000 }).toContainEqual(
        expect.objectContaining({
          msg: expect.stringMatching(/^database unavailable: nothing accepts connections at DATABASE_URL's host/),
        }),
      );
      await expect
        .poll(lines, { timeout: 10_000 })
        .toContainEqual(
          expect.objectContaining({ req_id: "down-check-1", msg: "request", status: 503, route: "/api/v1/chains" }),
        );

      // Answered before the page streams: a real 503, not the error inside a 200.
      const shown = await page.goto(`${server.base}/chains`);
      expect(shown!.status()).toBe(503);
      expect(shown!.headers()["retry-after"]).toMatch(/^\d+$/);
      await expect(page.getByRole("heading", { name: "The database is unavailable" })).toBeVisible();
      await expect(page.getByRole("link", { name: "Try again" })).toHaveAttribute("href", "/chains");
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

test.describe("while the app starts", () => {
  test("it answers 503 saying what it is doing, never a hang, then serves", async () => {
    test.setTimeout(240_000);
    // An empty folder with the demo on: initdb, migrations and the demo's seed take seconds.
    const app = await spawnApp({ from: "empty", env: { FLOORLINE_DEMO: "1" } });
    try {
      const seen: { status: number; ms: number; body: string; retryAfter: string | null }[] = [];
      const deadline = Date.now() + 200_000;
      for (;;) {
        const started = Date.now();
        const answer = await fetch(`${app.base}/api/v1/health`, { signal: AbortSignal.timeout(10_000) }).catch(
          () => null,
        );
        if (answer) {
          seen.push({
            status: answer.status,
            ms: Date.now() - started,
            body: await answer.text(),
            retryAfter: answer.headers.get("retry-after"),
          });
          if (answer.status === 200) break;
          if (seen.length === 1 && answer.status === 503) {
            // A page is a page that says so, and reloads itself.
            const page = await fetch(`${app.base}/chains`, { redirect: "manual" });
            if (page.status === 503) {
              expect(await page.text()).toContain("Floorline is starting:");
              expect(page.headers.get("refresh")).toBe("2");
            }
          }
        }
        if (Date.now() > deadline) throw new Error(`never ready:\n${app.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const starting = seen.filter((s) => s.status === 503);
      expect(starting.length, app.output()).toBeGreaterThan(0);
      for (const s of starting) {
        expect(JSON.parse(s.body).error).toMatchObject({ code: "database_unavailable" });
        expect(JSON.parse(s.body).error.message).toMatch(/^Floorline is starting \(.+\); retry in a few seconds\.$/);
        expect(s.retryAfter).toBe("2");
      }
      // What it was doing shows: the database's migrations, or the demo's seed.
      expect(starting.map((s) => s.body).join("\n")).toMatch(/migrations|demo data|Next\.js|statistics|workers/);
      // No request waited for the whole start (it hung 34 s before): at most for one of its
      // synchronous steps (loading Next.js, PGlite's initdb), a few seconds on a busy machine.
      expect(Math.max(...seen.map((s) => s.ms))).toBeLessThan(20_000);
      expect(app.output()).toMatch(/"msg":"ready"/);
    } finally {
      await app.stop("SIGKILL");
    }
  });
});
