// Nothing lost quietly: refusals are reported with their reasons, counted, and answered by
// close(); an original still in the queue is found by retrieve(); a server that cannot be
// reached is named, with what it did not get.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeServer, fakeServer, receiptsIn } from "./fake-server";
import { sdk } from "./load";

let server: FakeServer;
let warned: string[];
beforeEach(async () => {
  server = await fakeServer();
  warned = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
    warned.push(args.map(String).join(" "));
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
});

const client = (options: Partial<import("../src/index").FloorlineOptions> = {}) =>
  new sdk.Floorline({
    url: server.url,
    flushOnExit: false,
    initialBackoffMs: 20,
    maxBackoffMs: 80,
    policies: { default: { min_size_bytes: 1, min_semantic_density: 0.1, max_pass_number: 1_000 } },
    ...options,
  });

function record(fl: InstanceType<typeof sdk.Floorline>, chainId: string, count: number) {
  const chain = fl.chain(chainId);
  for (let i = 0; i < count; i++) chain.recordPass(`in ${i}`.repeat(50), `out ${i}`.repeat(40), { density: 0.9 });
}

const conflict = (index: number) => ({
  status: 409,
  body: {
    error: {
      code: "idempotency_conflict",
      message: `Receipt ${index} reuses its chain_id and pass_id with a different body.`,
      issues: [{ path: `receipts.${index}`, message: "a receipt with this chain_id and pass_id was already stored" }],
    },
  },
});

describe("refused receipts", () => {
  it("are logged with their reasons by default, each time, naming the server", async () => {
    const fl = client({ maxBatchSize: 2 });
    server.script.push(conflict(0), conflict(1));
    record(fl, "r-1", 4);
    await fl.flush();
    const refusals = warned.filter((w) => w.includes("refused"));
    expect(refusals).toHaveLength(2);
    for (const line of refusals) {
      expect(line).toContain(server.url);
      expect(line).toContain("409 idempotency_conflict");
      expect(line).toContain("already stored");
    }
    await fl.close();
  });

  it("a 409 naming one receipt of a batch refuses that one and delivers the rest", async () => {
    const refused: unknown[] = [];
    const fl = client({ onError: (_e, items) => refused.push(...items.map((i) => i.body.pass_id)) });
    server.script.push(conflict(1));
    record(fl, "r-2", 3);
    await fl.flush();
    expect(refused).toEqual(["r-2.p2"]);
    expect(receiptsIn(server.seen.slice(1)).map((r) => r.pass_id)).toEqual(["r-2.p1", "r-2.p3"]);
    await fl.close();
  });

  it("are counted, and close() answers delivered, refused, dropped and undelivered", async () => {
    const fl = client({ onError: () => undefined, maxQueueSize: 4, maxBatchSize: 10 });
    server.script.push(conflict(0));
    record(fl, "r-3", 6);
    const report = await fl.close();
    expect(report).toEqual({ delivered: 3, refused: 1, dropped: 2, undelivered: 0, ok: false });
    expect(fl.stats).toMatchObject({ delivered: 3, sent: 3, refused: 1, dropped: 2, undelivered: 0, failed: 1 });
  });

  it("close({ throwOnLoss: true }) throws when any was lost, with the counts", async () => {
    const fl = client({ onError: () => undefined });
    server.script.push(conflict(0));
    record(fl, "r-4", 2);
    const closing = fl.close({ throwOnLoss: true });
    await expect(closing).rejects.toBeInstanceOf(sdk.ReceiptsLostError);
    await expect(closing).rejects.toMatchObject({
      code: "receipts_lost",
      report: { delivered: 1, refused: 1, dropped: 0, undelivered: 0, ok: false },
    });
    const clean = client();
    record(clean, "r-5", 2);
    await expect(clean.close({ throwOnLoss: true })).resolves.toMatchObject({ delivered: 2, ok: true });
  });

  it("a 500 is refused, not retried: the same request would fail the same way", async () => {
    const fl = client({ onError: () => undefined });
    server.script.push({ status: 500, body: { error: { code: "internal_error", message: "a bug" } } });
    record(fl, "r-6", 2);
    await fl.flush();
    expect(server.seen.filter((s) => s.path === "/api/v1/passes")).toHaveLength(1);
    expect(fl.stats).toMatchObject({ refused: 2, retried: 0 });
    await fl.close();
  });
});

describe("an unreachable server", () => {
  it("is named at close with the count of what it did not get, within the wait allowed", async () => {
    const url = server.url;
    await server.close();
    const fl = new sdk.Floorline({ url, flushOnExit: false, initialBackoffMs: 20, maxBackoffMs: 40 });
    record(fl, "u-1", 3);
    const started = Date.now();
    const report = await fl.close({ timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(report).toMatchObject({ delivered: 0, undelivered: 3, ok: false });
    const last = warned.at(-1) ?? "";
    expect(last).toContain(url);
    expect(last).toMatch(/\b3 undelivered\b/);
    expect(warned.some((w) => w.includes(`cannot reach ${url}`))).toBe(true);
    server = await fakeServer();
  });

  it("is waited for while it takes batches, however long the queue takes", async () => {
    const transport = {
      request: async (_method: string, _path: string, body?: unknown) => {
        await new Promise((r) => setTimeout(r, 150));
        return { results: (body as { receipts: unknown[] }).receipts.map(() => ({})) };
      },
    };
    const fl = new sdk.Floorline({ transport, flushOnExit: false, maxBatchSize: 1, scheduledDelayMs: 60_000 });
    record(fl, "slow-1", 6);
    // Six answers of 150 ms each: longer than the wait, which counts only time without an answer.
    expect(await fl.close({ timeoutMs: 400 })).toMatchObject({ delivered: 6, undelivered: 0 });
  });

  it("waits 5 s at most by default", () => {
    expect(sdk.DEFAULTS.exitTimeoutMs).toBe(5_000);
  });
});

describe("retrieve", () => {
  it("finds an original still in the client's queue", async () => {
    const fl = client({ cacheOriginals: true, scheduledDelayMs: 60_000 });
    const input = "the original, cached as the pass is recorded ".repeat(10);
    const pass = fl.chain("q-1").recordPass(input, "the original", { density: 0.9 });
    const key = /hash=([0-9a-f]+)/.exec(pass.output)?.[1] ?? "";
    const found = await fl.retrieve(key);
    expect(found).toMatchObject({ original: input, pending: true });
    expect(found.hash).toMatch(new RegExp(`^${key}[0-9a-f]{40}$`));
    expect(server.seen.filter((s) => s.path.startsWith("/api/v1/retrieve"))).toHaveLength(0);
    await fl.close();
  });

  it("asks the server once the original is delivered", async () => {
    const fl = client({ cacheOriginals: true });
    const pass = fl.chain("q-2").recordPass("an original ".repeat(20), "an original", { density: 0.9 });
    await fl.flush();
    const key = /hash=([0-9a-f]+)/.exec(pass.output)?.[1] ?? "";
    server.script.push({ status: 200, body: { hash: key, original: "from the server" } });
    expect(await fl.retrieve(key)).toMatchObject({ original: "from the server" });
    expect(server.seen.at(-1)).toMatchObject({ method: "POST", path: "/api/v1/retrieve", body: { hash: key } });
    await fl.close();
  });
});
