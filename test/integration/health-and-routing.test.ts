import { afterEach, describe, expect, it } from "vitest";
import * as unknownPath from "@/app/api/[...path]/route";
import * as boundariesRoute from "@/app/api/v1/boundaries/route";
import * as evaluateRoute from "@/app/api/v1/evaluate/route";
import * as healthRoute from "@/app/api/v1/health/route";
import * as passesRoute from "@/app/api/v1/passes/route";
import * as policiesRoute from "@/app/api/v1/policies/route";
import * as policyRoute from "@/app/api/v1/policies/[content_class]/route";
import { POST as evaluate } from "@/app/api/v1/evaluate/route";
import { GET as health } from "@/app/api/v1/health/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { getHandle, openDatabase, setHandle } from "@/db/index";
import { jsonRequest, setUpTestDatabase } from "../support/database";
import { call, expectError, post } from "./api-helpers";

setUpTestDatabase();

const receipt = {
  chain_id: "h",
  pass_id: "p1",
  pass_number: 1,
  current_content_hash: "x",
  current_size_bytes: 1,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 1,
};

describe("GET /api/v1/health", () => {
  it("is 200 ok with the database up", async () => {
    const answer = await call(health, jsonRequest("/api/v1/health"));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: "ok", database: "ok" });
  });

  it("is 503 with Retry-After when the database is unreachable, and writes answer 503 too", async () => {
    // The server has read its database once (start-up does, to say whether access control is on).
    expect((await call(listChains, jsonRequest("/api/v1/chains"))).status).toBe(200);
    const working = getHandle();
    // Nothing listens on port 1: the connection is refused.
    const unreachable = openDatabase({ url: "postgres://floorline:x@127.0.0.1:1/none" });
    unreachable.catch(() => {});
    setHandle(unreachable);
    try {
      const down = await call(health, jsonRequest("/api/v1/health"));
      expectError(down, 503, "database_unavailable");
      expect(Number(down.headers.get("retry-after"))).toBeGreaterThan(0);

      const write = await post(postPasses, "/api/v1/passes", receipt);
      expectError(write, 503, "database_unavailable");
      expect(write.headers.get("retry-after")).not.toBeNull();

      // The stateless guard needs no database.
      expect(
        (
          await post(evaluate, "/api/v1/evaluate", {
            pass: receipt,
            policy: { min_size_bytes: 0, min_semantic_density: 0, max_pass_number: 9 },
          })
        ).status,
      ).toBe(200);
    } finally {
      setHandle(working);
    }
    expect((await call(health, jsonRequest("/api/v1/health"))).status).toBe(200);
  });
});

describe("unknown API paths", () => {
  it.each(["GET", "POST", "PUT", "PATCH", "DELETE"] as const)(
    "%s /api/v1/nope is a JSON 404 in the error shape",
    async (method) => {
      const request = new Request("http://localhost/api/v1/nope/deeper", {
        method,
        body: method === "GET" ? undefined : "{}",
      });
      const answer = await call(async (r: Request) => unknownPath[method](r), request);
      const error = expectError(answer, 404, "not_found");
      expect(error.message).toContain("/api/v1/nope/deeper");
    },
  );
});

describe("API token", () => {
  afterEach(() => {
    delete process.env.FLOORLINE_API_TOKEN;
  });

  it("when set, requests without it are 401 in the error shape; health stays public", async () => {
    process.env.FLOORLINE_API_TOKEN = "s3cret-token";
    const denied = await call(listChains, jsonRequest("/api/v1/chains"));
    expectError(denied, 401, "unauthenticated");
    expect(denied.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expectError(
      await call(listChains, jsonRequest("/api/v1/chains", { headers: { authorization: "Bearer wrong-token!" } })),
      401,
      "unauthenticated",
    );
    expectError(
      await call(listChains, jsonRequest("/api/v1/chains", { headers: { authorization: "Bearer s3cret" } })),
      401,
      "unauthenticated",
    );
    expect(
      (await call(listChains, jsonRequest("/api/v1/chains", { headers: { authorization: "Bearer s3cret-token" } })))
        .status,
    ).toBe(200);
    expect((await call(health, jsonRequest("/api/v1/health"))).status).toBe(200);
  });

  it("is not required when unset", async () => {
    expect((await call(listChains, jsonRequest("/api/v1/chains"))).status).toBe(200);
  });
});

describe("methods an endpoint does not take", () => {
  type Module = Partial<
    Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", (r: Request, c: never) => Promise<Response>>
  >;
  const endpoints: Array<[string, Module, string[]]> = [
    ["/api/v1/evaluate", evaluateRoute, ["POST"]],
    ["/api/v1/passes", passesRoute, ["POST"]],
    ["/api/v1/boundaries", boundariesRoute, ["POST"]],
    ["/api/v1/policies", policiesRoute, ["GET"]],
    ["/api/v1/policies/x", policyRoute, ["GET", "PUT"]],
    ["/api/v1/health", healthRoute, ["GET"]],
  ];

  it.each(endpoints)("%s answers every other method with a JSON 405 and Allow", async (path, module, allowed) => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
      if (allowed.includes(method)) continue;
      const handler = module[method];
      expect(handler, `${method} ${path}`).toBeDefined();
      const answer = await call(
        async (r: Request) => handler!(r, { params: Promise.resolve({ content_class: "x" }) } as never),
        new Request(`http://localhost${path}`, { method }),
      );
      expectError(answer, 405, "method_not_allowed");
      expect(answer.headers.get("allow")).toBe(allowed.join(", "));
    }
  });
});
