// Two real app processes (the built app, `scripts/start.ts`) on one PostgreSQL database, as
// behind a load balancer: what one instance is told, the other must act on at once. Needs
// TEST_DATABASE_URL; the first start builds the app when the build is stale (the e2e run
// then reuses that build).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../support/app-server";
import { cliScript } from "../support/scripts";
import { dropScratchDatabase } from "../support/scratch-database";

const adminUrl = process.env.TEST_DATABASE_URL ?? "";
// `npm test` builds the app before this stage; run by hand on changed sources, the first
// start runs `next build` first, and a loaded machine starts slowly too.
const START_TIMEOUT = 300_000;
// The keys CLI (access control); the revocation test runs where it exists.
const CLI = "scripts/floorline.ts";

async function call(app: AppServer, method: string, route: string, body?: unknown, key?: string) {
  const response = await fetch(`${app.base}${route}`, {
    method,
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const receipt = (chainId: string, n: number, size: number, contentClass = "multi") => ({
  chain_id: chainId,
  pass_id: `${chainId}.p${n}`,
  pass_number: n,
  current_content_hash: `${chainId}:${n}`,
  input_content_hash: `${chainId}:${n - 1}`,
  current_size_bytes: size,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
  content_class: contentClass,
});

/** Reads a server-sent event stream into `text` until stopped. */
function readStream(response: Response) {
  const state = { text: "" };
  const decoder = new TextDecoder();
  const reading = (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
        state.text += decoder.decode(chunk);
    } catch {
      // aborted
    }
  })();
  return { state, reading };
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe.skipIf(!adminUrl)("several app instances on one PostgreSQL", () => {
  let a: AppServer;
  let b: AppServer;
  let dropDatabase: () => Promise<void>;
  let databaseUrl: string;
  let dir: string;

  beforeAll(async () => {
    const name = `floorline_multi_${randomBytes(5).toString("hex")}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    dropDatabase = () => dropScratchDatabase(adminUrl, name);
    databaseUrl = url.toString();
    const env = { DATABASE_URL: databaseUrl, FLOORLINE_DEMO: "0", NODE_ENV: "production" };
    // Data folders the instances leave unused (the database is PostgreSQL's).
    dir = mkdtempSync(path.join(tmpdir(), "floorline-multi-"));
    // One after the other: the first may build, and two builds must not share a folder.
    a = await startApp({ dataDir: path.join(dir, "a"), env, healthyWithinMs: START_TIMEOUT });
    b = await startApp({ dataDir: path.join(dir, "b"), env, healthyWithinMs: START_TIMEOUT });
  }, START_TIMEOUT * 2);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await dropDatabase?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("judges the next receipt on B with the policy just saved on A", async () => {
    const strict = await call(a, "PUT", "/api/v1/policies/multi", {
      min_size_bytes: 1_000,
      min_semantic_density: 0.1,
      max_pass_number: 50,
    });
    expect(strict.status).toBe(201);
    const first = await call(b, "POST", "/api/v1/passes", receipt("policy-chain", 2, 500));
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ verdict: "COLLAPSE_IMMINENT", policy_version: 1 });

    const relaxed = await call(a, "PUT", "/api/v1/policies/multi", {
      min_size_bytes: 100,
      min_semantic_density: 0.1,
      max_pass_number: 50,
    });
    expect(relaxed.status).toBe(201);
    const second = await call(b, "POST", "/api/v1/passes", receipt("policy-chain", 3, 500));
    expect(second.body).toMatchObject({ verdict: "SAFE_TO_COMPRESS", policy_version: 2 });
    expect((await call(b, "GET", "/api/v1/policies/multi")).body).toMatchObject({ version: 2, min_size_bytes: 100 });
  });

  it("shows a receipt ingested on A on an event stream served by B, as it commits", async () => {
    expect((await call(a, "POST", "/api/v1/passes", receipt("live-chain", 1, 5_000))).status).toBe(201);
    const controller = new AbortController();
    const response = await fetch(`${b.base}/api/v1/chains/live-chain/events`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const { state, reading } = readStream(response);
    try {
      expect(await waitFor(() => state.text.includes("event: version"), 10_000)).toBe(true);
      expect(state.text).toContain('"pass_count":1');
      expect((await call(a, "POST", "/api/v1/passes", receipt("live-chain", 2, 4_000))).status).toBe(201);
      // B re-reads a chain unprompted only every 15 s: within 10 s, only A's NOTIFY can have told it.
      expect(await waitFor(() => state.text.includes("event: change"), 10_000)).toBe(true);
      expect(state.text).toContain('"pass_count":2');
    } finally {
      controller.abort();
      await reading;
    }
  });

  // Last: the first key turns access control on for both instances.
  it.skipIf(!existsSync(CLI))("refuses on B, at once, a key revoked on A", async () => {
    // Not execFileSync: with the event loop blocked for the CLI's run, a kept-alive socket the
    // server closed meanwhile looks open to fetch, and the next request fails "other side closed".
    const { stdout: created } = await promisify(execFile)(
      process.execPath,
      [...cliScript(), "keys", "create", "--name", "multi-admin", "--scopes", "ingest,read,admin", "--json"],
      { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: "utf8" },
    );
    const admin = (JSON.parse(created) as { key: string }).key;
    const issued = await call(a, "POST", "/api/v1/keys", { name: "short-lived", scopes: ["read"] }, admin);
    expect(issued.status).toBe(201);
    const { id, key } = issued.body as { id: string; key: string };
    // B has noticed that access control is on (it re-reads "no credentials yet" every few seconds).
    const deadline = Date.now() + 10_000;
    while ((await call(b, "GET", "/api/v1/chains")).status !== 401 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect((await call(b, "GET", "/api/v1/chains")).status).toBe(401);
    expect((await call(b, "GET", "/api/v1/chains", undefined, key)).status).toBe(200);

    const revoked = await call(a, "DELETE", `/api/v1/keys/${id}`, undefined, admin);
    expect(revoked.status).toBeLessThan(300);
    const refused = await call(b, "GET", "/api/v1/chains", undefined, key);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: "unauthenticated" } });
  });
});
