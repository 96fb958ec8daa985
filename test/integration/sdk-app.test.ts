// The TypeScript SDK (as built) against the built app over real HTTP, on PGlite or on
// PostgreSQL when TEST_DATABASE_URL is set: what it records is what a hand-written client
// would store, and delivery survives a stopped server, a 429 storm and a refused receipt.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIST_ENTRY, sdk } from "../../sdk/typescript/test/load";
import { createDatabase } from "../bench/support/postgres";
import { type AppServer, startApp } from "../support/app-server";

// `npm test` builds the app before this stage; run by hand on changed sources, the start
// script runs `next build` first, and a loaded machine starts slowly too.
const START_TIMEOUT = 300_000;
const adminUrl = process.env.TEST_DATABASE_URL ?? "";
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

let app: AppServer;
let port: number;
let dataDir: string;
let env: Record<string, string>;
let cleanup: () => Promise<void>;

async function call(method: string, route: string, body?: unknown) {
  const response = await fetch(`${app.base}${route}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

type StoredPass = Record<string, unknown> & { pass_id: string; pass_number: number };
async function chain(id: string) {
  const { status, body } = await call("GET", `/api/v1/chains/${encodeURIComponent(id)}`);
  expect(status).toBe(200);
  return body as { passes: StoredPass[]; boundaries: Array<Record<string, unknown>>; integrity: unknown[] };
}

beforeAll(async () => {
  // The embedded database's folder (unused on PostgreSQL); the restart below reopens it.
  dataDir = mkdtempSync(path.join(tmpdir(), "floorline-sdk-app-"));
  if (adminUrl) {
    const database = await createDatabase(adminUrl, "floorline_sdk");
    env = { DATABASE_URL: database.url, FLOORLINE_DEMO: "0", LOG_LEVEL: "warn" };
    cleanup = async () => {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  } else {
    env = { DATABASE_URL: "", FLOORLINE_DEMO: "0", LOG_LEVEL: "warn" };
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
  }
  app = await startApp({ dataDir, env, healthyWithinMs: START_TIMEOUT });
  port = app.port;
}, START_TIMEOUT);

afterAll(async () => {
  await app?.stop();
  await cleanup?.();
}, 60_000);

const client = (options: Partial<import("../../sdk/typescript/src/index").FloorlineOptions> = {}) =>
  new sdk.Floorline({ url: app.base, flushOnExit: false, initialBackoffMs: 100, maxBackoffMs: 1_000, ...options });

/** Text that shrinks pass after pass, as a summariser's output would. */
const passText = (n: number) => `pass ${n}: `.concat("context worth keeping ".repeat(Math.max(1, 60 - n * 7)));

describe("the SDK against the built app", () => {
  it("stores a chain recorded through the SDK exactly as the same chain posted by hand", async () => {
    const fl = client();
    const recorded = fl.chain("sdk-same");
    await recorded.ready();
    for (let n = 1; n <= 6; n++) recorded.recordPass(passText(n - 1), passText(n), { density: 0.8 });
    await fl.flush();

    const receipts = [];
    for (let n = 1; n <= 6; n++) {
      const output = passText(n);
      receipts.push({
        chain_id: "hand-same",
        pass_id: `sdk-same.p${n}`,
        pass_number: n,
        input_content_hash: sha(passText(n - 1)),
        current_content_hash: sha(output),
        current_size_bytes: Buffer.byteLength(output, "utf8"),
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.8,
      });
    }
    expect((await call("POST", "/api/v1/passes", { receipts })).status).toBe(201);

    const fields = (p: StoredPass) => {
      const { chain_id, created_at, received_at, ingested_at, id, ...rest } = p;
      void [chain_id, created_at, received_at, ingested_at, id];
      return rest;
    };
    const viaSdk = (await chain("sdk-same")).passes.map(fields);
    const byHand = (await chain("hand-same")).passes.map(fields);
    expect(viaSdk).toHaveLength(6);
    for (const [i, pass] of viaSdk.entries()) {
      const {
        verdict: clientVerdict,
        manifest_digest: clientDigest,
        client_verdict,
        client_manifest_digest,
        ...rest
      } = pass as Record<string, unknown>;
      void [clientVerdict, clientDigest, client_verdict, client_manifest_digest];
      expect(byHand[i]).toMatchObject(rest);
      expect(pass.client_mismatch).toBe(false);
    }
    expect(viaSdk.map((p) => p.verdict)).toContain("COLLAPSE_IMMINENT");
    expect(fl.stats).toMatchObject({ sent: 6, failed: 0 });
    await fl.close();
  });

  it("stores every one of 20,000 passes exactly once across a 10 s server stop", async () => {
    const fl = client({ maxQueueSize: 20_000 });
    const chains = Array.from({ length: 20 }, (_, i) => fl.chain(`outage-${i}`));
    const recordThousand = (half: number) => {
      for (let n = 1; n <= 500; n++)
        for (const c of chains) c.recordPass(`in ${half} ${n}`, `out ${half} ${n} `.repeat(20), { density: 0.9 });
    };
    recordThousand(0);
    // Stopped while the first half is still being delivered, then the second half recorded.
    await new Promise((r) => setTimeout(r, 300));
    await app.stop();
    recordThousand(1);
    await new Promise((r) => setTimeout(r, 10_000));
    expect(fl.stats.retried).toBeGreaterThan(0);
    app = await startApp({ port, dataDir, env, healthyWithinMs: START_TIMEOUT });
    await fl.flush();
    expect(fl.stats).toMatchObject({ sent: 20_000, dropped: 0, failed: 0, queued: 0 });
    for (const c of chains) {
      const stored = await chain(c.id);
      expect(stored.passes.map((p) => p.pass_number)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
      expect(stored.integrity.filter((f) => (f as { kind: string }).kind === "repeated_pass")).toEqual([]);
    }
    await fl.close();
  }, 300_000);

  it("honours a storm of 429s, each retry no sooner than its Retry-After", async () => {
    const posts: number[] = [];
    let storm = 4;
    const proxy = await forward((req) => {
      if (req.method !== "POST") return null;
      posts.push(Date.now());
      return storm-- > 0 ? { status: 429, retryAfter: "1" } : null;
    });
    const fl = new sdk.Floorline({ url: proxy.url, flushOnExit: false, initialBackoffMs: 10, maxBackoffMs: 20 });
    const c = fl.chain("storm");
    for (let n = 1; n <= 50; n++) c.recordPass(`in ${n}`, `out ${n}`.repeat(30), { density: 0.9 });
    await fl.flush();
    expect(posts).toHaveLength(5);
    for (let i = 1; i < posts.length; i++)
      expect((posts[i] as number) - (posts[i - 1] as number)).toBeGreaterThanOrEqual(1_000);
    expect((await chain("storm")).passes).toHaveLength(50);
    expect(fl.stats).toMatchObject({ sent: 50, retried: 200, failed: 0 });
    await fl.close();
    await proxy.close();
  }, 60_000);

  it("reports a 422 to onError with the receipt it names, never retries it, and stores the rest", async () => {
    const posts: number[] = [];
    const proxy = await forward((req) => {
      if (req.method === "POST") posts.push(Date.now());
      return null;
    });
    const refused: Array<{ status: number; passIds: unknown[] }> = [];
    const fl = new sdk.Floorline({
      url: proxy.url,
      flushOnExit: false,
      onError: (error, items) => refused.push({ status: error.status, passIds: items.map((i) => i.body.pass_id) }),
    });
    const c = fl.chain("refused");
    c.recordPass("a ".repeat(200), "b ".repeat(150), { density: 0.9 });
    c.recordPass("b ".repeat(150), "c ".repeat(140), { density: 0.9, metadata: { blob: "x".repeat(20 * 1024) } });
    c.recordPass("c ".repeat(140), "d ".repeat(130), { density: 0.9 });
    await fl.flush();
    expect(refused).toEqual([{ status: 422, passIds: ["refused.p2"] }]);
    expect(posts).toHaveLength(2);
    expect((await chain("refused")).passes.map((p) => p.pass_id)).toEqual(["refused.p1", "refused.p3"]);
    expect(fl.stats).toMatchObject({ sent: 2, failed: 1, retried: 0 });
    await fl.close();
    await proxy.close();
  });

  it("ends compressUntilFloor where the guard says for each strategy, its boundary stored", async () => {
    const policy = { min_size_bytes: 200, min_semantic_density: 0.3, max_pass_number: 8 };
    expect((await call("PUT", "/api/v1/policies/sdk-floor", policy)).status).toBe(201);
    const fl = client();
    const halve = (s: string) => ({ output: s.slice(0, Math.ceil(s.length / 2)), density: 0.9 });
    const outcomes = [];
    for (const strategy of ["halt", "restore", "accept_loss"] as const) {
      const c = fl.chain(`floor-${strategy}`, { contentClass: "sdk-floor" });
      outcomes.push({
        c,
        strategy,
        outcome: await c.compressUntilFloor("w ".repeat(1600), halve, { onBreach: () => strategy }),
      });
    }
    await fl.flush();
    for (const { c, strategy, outcome } of outcomes) {
      const last = outcome.passes.at(-1);
      // 3200 → 1600 (pass 1) → 800 → 400 → 200 → 100: under 200 bytes at pass 5.
      expect(last?.receipt.pass_number).toBe(5);
      expect(sdk.evaluatePass(last?.receipt as never, policy)).toMatchObject({
        verdict: "COLLAPSE_IMMINENT",
        directive: "HALT: Size 100 < 200, next pass will collapse.",
      });
      expect(outcome.content.length).toBe(strategy === "accept_loss" ? 100 : 200);
      const stored = await chain(c.id);
      expect(stored.passes.at(-1)).toMatchObject({ pass_number: 5, verdict: "COLLAPSE_IMMINENT" });
      expect(stored.boundaries).toEqual([
        expect.objectContaining({
          pass_number: 5,
          strategy,
          reason: "HALT: Size 100 < 200, next pass will collapse.",
          ...(strategy === "restore" ? { restore_pass_id: `${c.id}.p4` } : {}),
        }),
      ]);
    }
    await fl.close();
  });

  it("delivers the receipts of a process that exits right after recording", async () => {
    const script = `
      const { Floorline } = await import(process.env.SDK);
      const chain = new Floorline({ url: process.env.URL }).chain("exits-at-once");
      for (let n = 1; n <= 40; n++) chain.recordPass("in " + n, "out ".repeat(100 - n), { density: 0.9 });`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, SDK: DIST_ENTRY, URL: app.base },
      stdio: "inherit",
    });
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
    expect((await chain("exits-at-once")).passes).toHaveLength(40);
  });
});

/** A proxy to the app whose `decide` may answer a request itself (status, Retry-After). */
async function forward(
  decide: (req: { method: string; url: string }) => { status: number; retryAfter?: string } | null,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const own = decide({ method: req.method ?? "", url: req.url ?? "" });
      if (own) {
        res.writeHead(own.status, {
          "content-type": "application/json",
          ...(own.retryAfter ? { "retry-after": own.retryAfter } : {}),
        });
        res.end(JSON.stringify({ error: { code: "rate_limited", message: "Too many requests; retry later." } }));
        return;
      }
      const upstream = await fetch(`${app.base}${req.url}`, {
        method: req.method,
        headers: { "content-type": req.headers["content-type"] ?? "application/json" },
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(upstream.status, { "content-type": "application/json" });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
