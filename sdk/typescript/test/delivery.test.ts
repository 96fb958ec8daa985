// Delivery against a scripted server: batches, retries that honour Retry-After, refusals that
// are reported and never retried, the bounded queue, and the policy cache.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeServer, fakeServer, receiptsIn } from "./fake-server";
import { sdk } from "./load";

let server: FakeServer;
beforeEach(async () => {
  server = await fakeServer();
});
afterEach(async () => {
  await server.close();
});

const client = (options: Partial<import("../src/index").FloorlineOptions> = {}) =>
  new sdk.Floorline({ url: server.url, flushOnExit: false, initialBackoffMs: 20, maxBackoffMs: 80, ...options });

function record(fl: InstanceType<typeof sdk.Floorline>, chainId: string, count: number) {
  const chain = fl.chain(chainId);
  for (let i = 0; i < count; i++) chain.recordPass(`in ${i}`.repeat(50), `out ${i}`.repeat(40), { density: 0.9 });
}

describe("delivery", () => {
  it("sends batches of at most maxBatchSize, in order, each receipt once", async () => {
    const fl = client();
    record(fl, "b-1", 1_200);
    await fl.flush();
    const batches = server.seen.filter((s) => s.path === "/api/v1/passes");
    expect(batches.map((b) => (b.body as { receipts: unknown[] }).receipts.length)).toEqual([500, 500, 200]);
    expect(receiptsIn(server.seen).map((r) => r.pass_number)).toEqual(Array.from({ length: 1_200 }, (_, i) => i + 1));
    expect(fl.stats).toMatchObject({ sent: 1_200, retried: 0, dropped: 0, failed: 0, queued: 0 });
    await fl.close();
  });

  it("sends a partial batch by itself once the delay has passed", async () => {
    const fl = client({ scheduledDelayMs: 50 });
    record(fl, "b-2", 3);
    // Sent without a flush or a full batch: waited for (a loaded machine is slow), not slept on.
    await vi.waitFor(() => expect(receiptsIn(server.seen)).toHaveLength(3), { timeout: 10_000, interval: 20 });
    await fl.close();
  });

  it("retries a 503 and a 429 no sooner than their Retry-After, then delivers the same bodies", async () => {
    server.script.push({ status: 404, body: {} }); // the policy read
    server.script.push({
      status: 503,
      headers: { "retry-after": "1" },
      body: { error: { code: "database_unavailable", message: "down" } },
    });
    server.script.push({
      status: 429,
      headers: { "retry-after": "1" },
      body: { error: { code: "rate_limited", message: "slow" } },
    });
    const fl = client();
    record(fl, "b-3", 10);
    await fl.flush();
    const posts = server.seen.filter((s) => s.path === "/api/v1/passes");
    expect(posts).toHaveLength(3);
    expect((posts[1] as { at: number }).at - (posts[0] as { at: number }).at).toBeGreaterThanOrEqual(1_000);
    expect((posts[2] as { at: number }).at - (posts[1] as { at: number }).at).toBeGreaterThanOrEqual(1_000);
    expect(JSON.stringify(posts[2]?.body)).toBe(JSON.stringify(posts[0]?.body));
    expect(fl.stats).toMatchObject({ sent: 10, retried: 20, failed: 0 });
    await fl.close();
  });

  it("reports a 422 to onError with the receipts it names, resends the rest, and never retries them", async () => {
    const refused: Array<{ code: string; ids: unknown[] }> = [];
    const fl = client({
      onError: (error, items) => refused.push({ code: error.code, ids: items.map((i) => i.body.pass_id) }),
    });
    server.script.push({ status: 404, body: {} });
    server.script.push({
      status: 422,
      body: {
        error: { code: "invalid_input", message: "bad", issues: [{ path: "receipts.1.pass_id", message: "too long" }] },
      },
    });
    record(fl, "b-4", 3);
    await fl.flush();
    expect(refused).toEqual([{ code: "invalid_input", ids: ["b-4.p2"] }]);
    const posts = server.seen.filter((s) => s.path === "/api/v1/passes");
    expect(posts).toHaveLength(2);
    expect(
      ((posts[1] as { body: unknown }).body as { receipts: Array<{ pass_id: string }> }).receipts.map((r) => r.pass_id),
    ).toEqual(["b-4.p1", "b-4.p3"]);
    expect(fl.stats).toMatchObject({ sent: 2, failed: 1, retried: 0 });
    await fl.close();
  });

  it("never retries another 4xx", async () => {
    const refused: number[] = [];
    const fl = client({ onError: (error, items) => refused.push(error.status, items.length) });
    server.script.push({ status: 404, body: {} });
    server.script.push({ status: 401, body: { error: { code: "unauthenticated", message: "no key" } } });
    record(fl, "b-5", 4);
    await fl.flush();
    expect(refused).toEqual([401, 4]);
    expect(server.seen.filter((s) => s.path === "/api/v1/passes")).toHaveLength(1);
    await fl.close();
  });

  it("keeps at most maxQueueSize items, dropping the oldest and counting them", async () => {
    const fl = client({ maxQueueSize: 10, maxBatchSize: 500 });
    record(fl, "b-6", 25);
    expect(fl.stats).toMatchObject({ dropped: 15, queued: 10 });
    await fl.flush();
    expect(receiptsIn(server.seen).map((r) => r.pass_number)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    await fl.close();
  });

  it("keeps trying through an outage and delivers once the server answers", async () => {
    const port = Number(new URL(server.url).port);
    await server.close();
    const fl = client();
    record(fl, "b-7", 5);
    const flushed = fl.flush();
    // Retried at least once while the server is down: waited for, not slept on (a loaded
    // machine may not have made its first attempt within a fixed sleep).
    await vi.waitFor(() => expect(fl.stats.retried).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
    // Back on the same port, so the client's next retry reaches it.
    server = await fakeServer(port);
    await flushed;
    expect(receiptsIn(server.seen)).toHaveLength(5);
    expect(fl.stats).toMatchObject({ sent: 5, failed: 0, dropped: 0 });
    await fl.close();
  });

  it("reads the class's policy from the server and refetches it when a receipt names a newer version", async () => {
    const policy = (version: number, min: number) => ({
      status: 200,
      body: { content_class: "p", version, min_size_bytes: min, min_semantic_density: 0.1, max_pass_number: 9 },
    });
    server.script.push(policy(3, 10));
    const fl = client();
    const chain = fl.chain("b-8", { contentClass: "p" });
    expect(await chain.ready()).toMatchObject({ version: 3, min_size_bytes: 10 });
    expect(chain.policy.min_size_bytes).toBe(10);
    server.fallback = (seen) =>
      seen.method === "GET"
        ? policy(4, 20)
        : {
            status: 201,
            body: {
              results: (seen.body as { receipts: Array<Record<string, unknown>> }).receipts.map((r) => ({
                chain_id: r.chain_id,
                policy_version: 4,
              })),
            },
          };
    chain.recordPass("a ".repeat(50), "b ".repeat(25), { density: 0.9 });
    await fl.flush();
    await chain.ready();
    // The refetch runs after the answer that named version 4: waited for, not slept on.
    await vi.waitFor(() => expect(chain.policy).toMatchObject({ version: 4, min_size_bytes: 20 }), {
      timeout: 30_000,
      interval: 20,
    });
    await fl.close();
  });

  it("sends cached originals, boundaries and traces to their endpoints", async () => {
    const fl = client({ cacheOriginals: true });
    const chain = fl.chain("b-9");
    chain.recordPass("x ".repeat(250), "x ".repeat(200), { density: 0.9 });
    chain.recordBoundary({ pass_number: 1, strategy: "halt", reason: "enough" });
    const trace = fl.distill(
      [{ node_id: "n1", node_type: "VERIFIED_CONCLUSION", content: "it holds", verification_receipt: "r1" }],
      { parentTraceId: "the-predecessor" },
    );
    await fl.flush();
    expect(server.seen.filter((s) => s.method === "POST").map((s) => s.path)).toEqual([
      "/api/v1/originals",
      "/api/v1/passes",
      "/api/v1/boundaries",
      "/api/v1/traces",
    ]);
    const traceBody = server.seen.find((s) => s.path === "/api/v1/traces")?.body as Record<string, unknown>;
    expect(traceBody).toMatchObject({
      trace_id: trace.trace_id,
      residual_digest: trace.residual_digest,
      parent_trace_id: "the-predecessor",
    });
    await fl.close();
  });
});
