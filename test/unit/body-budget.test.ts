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
});

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
