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
    small.headers.set("authorization", "Bearer fl_someone_else");
    await expect(readJson(small)).resolves.toBeTypeOf("object");
    releaseBodyBytes(small);
    // What they hold is their up-front reservations, not the 108 MiB they declared.
    expect(bodyBytesInFlight() - before).toBeLessThanOrEqual(12 * 3 * MiB);
    // Those that got in are dropped with 408 when idle; the last of one caller's twelve may be
    // refused at once with 503 (more than an eighth held, past three quarters in flight).
    const failures = await Promise.all(waiting);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(ApiError);
      expect(["request_timeout", "server_busy"]).toContain(failure?.code);
    }
    const timedOut = failures.filter((failure) => failure?.code === "request_timeout");
    expect(timedOut.length).toBeGreaterThanOrEqual(8);
    for (const failure of timedOut) expect(failure?.toResponse().status).toBe(408);
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

describe("each caller's share of the budget", () => {
  /** A request of `caller` that sends `sent` bytes of a 9 MiB body, then nothing. */
  const trickle = (caller: Record<string, string>, sent: number) => {
    const request = stalled(9 * MiB, `{"original": "${"x".repeat(sent)}`);
    for (const [name, value] of Object.entries(caller)) request.headers.set(name, value);
    return request;
  };
  const send = (caller: Record<string, string>, bytes: number) => {
    const request = post(jsonOf(bytes));
    for (const [name, value] of Object.entries(caller)) request.headers.set(name, value);
    return request;
  };
  const A = { authorization: "Bearer fl_a" };

  it("one key's large bodies cannot make another caller's small write wait", async () => {
    process.env.FLOORLINE_BODY_BUDGET_MB = "16";
    process.env.FLOORLINE_BODY_IDLE_TIMEOUT_MS = "1500";
    const before = bodyBytesInFlight();
    // Key A opens five bodies and sends a MiB of each, then stalls: each holds 3 MiB (a MiB
    // counted at 3x). Four fit in three quarters of the budget; the fifth would take A past it
    // while A holds more than an eighth, and is refused, leaving a quarter for everyone else.
    const heavy = [0, 1, 2, 3, 4].map(() => trickle(A, MiB - 64));
    const outcomes = heavy.map((request) => failureOf(readJson(request, 10 * MiB)));
    await expect.poll(() => bodyBytesInFlight() - before).toBeGreaterThanOrEqual(12 * MiB);
    // Another key, a session and an address each get their small write read at once.
    const others: Record<string, string>[] = [{ authorization: "Bearer fl_b" }, { cookie: "floorline_session=s1" }, {}];
    for (const other of others) {
      const small = send(other, 200 * 1024);
      await expect(readJson(small)).resolves.toBeTypeOf("object");
      releaseBodyBytes(small);
    }
    const failures = await Promise.all(outcomes);
    expect(failures.filter((f) => f?.code === "server_busy").length).toBeGreaterThanOrEqual(1);
    for (const request of heavy) releaseBodyBytes(request);
    expect(bodyBytesInFlight()).toBe(before);
  });

  it("a caller alone still fills the budget, and one body alone passes whatever its size", async () => {
    process.env.FLOORLINE_BODY_BUDGET_MB = "16";
    const first = send(A, 2 * MiB);
    const second = send(A, 2 * MiB);
    await expect(readJson(first, 8 * MiB)).resolves.toBeTypeOf("object");
    // 6 MiB held by A (more than an eighth), 12 MiB with this one: within three quarters.
    await expect(readJson(second, 8 * MiB)).resolves.toBeTypeOf("object");
    releaseBodyBytes(first);
    releaseBodyBytes(second);
    process.env.FLOORLINE_BODY_BUDGET_MB = "1";
    const lone = send(A, 3 * MiB);
    await expect(readJson(lone, 8 * MiB)).resolves.toBeTypeOf("object");
    releaseBodyBytes(lone);
    expect(bodyBytesInFlight()).toBe(0);
  });
});

describe("a body that grows past its endpoint's limit", () => {
  /** A chunked request of `chunks` MiB, counting the chunks the reader pulled and whether it cancelled. */
  function growing(chunks: number) {
    const seen = { pulled: 0, cancelled: false };
    const chunk = new Uint8Array(MiB).fill(0x78);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (seen.pulled === chunks) return controller.close();
        seen.pulled++;
        controller.enqueue(seen.pulled === 1 ? new TextEncoder().encode('{"padding": "') : chunk);
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    const request = new Request("http://localhost/api/v1/passes", {
      method: "POST",
      body,
      duplex: "half",
      headers: { "content-type": "application/json" },
    } as RequestInit);
    return { request, seen };
  }

  it("is refused with 413 after the client has sent the rest, so that it reads the answer", async () => {
    // Closing the body at the limit closed the socket under a client still sending: EPIPE, no 413.
    const { request, seen } = growing(13);
    const error = await failureOf(readJson(request, 10 * MiB));
    expect(error?.code).toBe("payload_too_large");
    expect(seen).toEqual({ pulled: 13, cancelled: false });
    releaseBodyBytes(request);
  });

  it("stops reading one limit past the limit: a body that never ends is cut off", async () => {
    const { request, seen } = growing(1000);
    const error = await failureOf(readJson(request, 2 * MiB));
    expect(error?.code).toBe("payload_too_large");
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(10);
    releaseBodyBytes(request);
  });
});
