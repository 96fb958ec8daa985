// The in-flight body budget: bodies count while their request is in flight, a burst past the
// budget is a 503 with Retry-After, a lone body up to its endpoint's limit always passes, and
// every byte is given back when the request is answered, failed or not.
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/errors";
import { bodyBytesInFlight, MiB, readJson, releaseBodyBytes } from "@/lib/http/body";
import type { RoutePattern } from "@/lib/http/registry";
import { type Handler, wrapRoute } from "@/lib/http/route";

// The pure wrapper with an access check that admits everyone (the gate is tested in integration).
const route = (pattern: RoutePattern, handler: Handler<{ params: Promise<Record<string, string>> }>) =>
  wrapRoute(pattern, handler, async () => ({ kind: "anonymous" }));

const post = (body: string) =>
  new Request("http://localhost/api/v1/evaluate", {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
  });

const jsonOf = (bytes: number) => JSON.stringify({ original: "x".repeat(bytes - 16) });

afterEach(() => {
  delete process.env.FLOORLINE_BODY_BUDGET_MB;
  delete process.env.FLOORLINE_BODY_IDLE_TIMEOUT_MS;
});

/** A request that declares `declared` bytes, sends `sent` of them, then nothing. */
function stalled(declared: number, sent = ""): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (sent) controller.enqueue(new TextEncoder().encode(sent));
    },
  });
  return new Request("http://localhost/api/v1/originals", {
    method: "POST",
    body,
    duplex: "half",
    headers: { "content-type": "application/json", "content-length": String(declared) },
  } as RequestInit);
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as ApiError,
  );

describe("in-flight body budget", () => {
  it("counts a body while its request is in flight and gives it back on release", async () => {
    const request = post(jsonOf(MiB));
    const before = bodyBytesInFlight();
    await readJson(request);
    expect(bodyBytesInFlight() - before).toBeGreaterThanOrEqual(MiB);
    releaseBodyBytes(request);
    expect(bodyBytesInFlight()).toBe(before);
  });

  it("refuses a second body past the budget with 503 and Retry-After, and holds nothing for it", async () => {
    process.env.FLOORLINE_BODY_BUDGET_MB = "3";
    const first = post(jsonOf(MiB));
    await readJson(first, 8 * MiB);
    const held = bodyBytesInFlight();
    const second = post(jsonOf(2 * MiB));
    const refusal = await readJson(second, 8 * MiB).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ApiError);
    const response = (refusal as ApiError).toResponse();
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await response.json()).error.code).toBe("server_busy");
    releaseBodyBytes(second);
    expect(bodyBytesInFlight()).toBe(held);
    releaseBodyBytes(first);
    expect(bodyBytesInFlight()).toBe(0);
  });

  it("bodies that declare much and send nothing hold little, and are dropped with 408 when idle", async () => {
    process.env.FLOORLINE_BODY_BUDGET_MB = "40";
    process.env.FLOORLINE_BODY_IDLE_TIMEOUT_MS = "1500";
    const before = bodyBytesInFlight();
    const idle = Array.from({ length: 12 }, (_, i) => stalled(9 * MiB, i % 2 ? '{"original": "' : ""));
    const waiting = idle.map((request) => failureOf(readJson(request, 10 * MiB)));
    // Twelve sockets declaring 108 MiB between them leave room in a 40 MiB budget: a small
    // write from someone else is read at once.
    const small = post(jsonOf(1024));
    await expect(readJson(small)).resolves.toBeTypeOf("object");
    releaseBodyBytes(small);
    for (const failure of await Promise.all(waiting)) {
      expect(failure).toBeInstanceOf(ApiError);
      expect(failure?.code).toBe("request_timeout");
      expect(failure?.toResponse().status).toBe(408);
    }
    for (const request of idle) releaseBodyBytes(request);
    expect(bodyBytesInFlight()).toBe(before);
  });

  it("always lets a lone body up to its endpoint's limit through", async () => {
    process.env.FLOORLINE_BODY_BUDGET_MB = "1";
    const request = post(jsonOf(3 * MiB));
    await expect(readJson(request, 8 * MiB)).resolves.toBeTypeOf("object");
    releaseBodyBytes(request);
    expect(bodyBytesInFlight()).toBe(0);
  });

  it("the route wrapper gives the bytes back whether the handler answers or throws", async () => {
    const ok = route("/api/v1/evaluate", async (request) => {
      await readJson(request);
      expect(bodyBytesInFlight()).toBeGreaterThan(0);
      return Response.json({});
    });
    const failing = route("/api/v1/evaluate", async (request) => {
      await readJson(request);
      throw new Error("boom");
    });
    const context = { params: Promise.resolve({}) };
    expect((await ok(post(jsonOf(MiB)), context)).status).toBe(200);
    expect(bodyBytesInFlight()).toBe(0);
    expect((await failing(post(jsonOf(MiB)), context)).status).toBe(500);
    expect(bodyBytesInFlight()).toBe(0);
  });
});
