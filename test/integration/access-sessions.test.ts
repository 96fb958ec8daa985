// Operator sessions through the real handlers: sign-in sets an HttpOnly SameSite=Lax cookie
// (Secure and __Host- prefixed behind https, said by a trusted proxy only), the session
// expires after the idle time and after its absolute lifetime (clock moved), sign-out and
// disabling the operator end it, roles decide policy edits and every policy version records
// who saved it. Cookie writes must be same-origin. Throttling: access-throttle.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { accessClock, createApiKey, createOperator } from "@/db/queries/access";
import { setUpTestDatabase } from "../support/database";
import { expectError } from "./api-helpers";
import { bearer, callRoute, cookie, fromSocket, setUpCleanAccessState } from "./access-helpers";
import * as sessionRoute from "@/app/api/v1/session/route";
import * as policyRoute from "@/app/api/v1/policies/[content_class]/route";
import * as operatorRoute from "@/app/api/v1/operators/[id]/route";

setUpTestDatabase();
setUpCleanAccessState();

const PASSWORD = "correct horse battery";

async function read(response: Response) {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

async function signIn(name: string, password = PASSWORD, headers: Record<string, string> = {}) {
  return read(
    await sessionRoute.POST(
      new Request("http://localhost/api/v1/session", {
        method: "POST",
        headers: { "content-type": "application/json", ...fromSocket("10.0.0.1"), ...headers },
        body: JSON.stringify({ name, password }),
      }),
      { params: Promise.resolve({}) },
    ),
  );
}

function tokenOf(setCookie: string | null): string {
  const match = /^floorline_session=([^;]+)/.exec(setCookie ?? "");
  if (!match) throw new Error(`no session cookie in ${setCookie}`);
  return match[1]!;
}

async function putPolicy(contentClass: string, headers: Record<string, string>, density = 0.3) {
  return read(
    await policyRoute.PUT(
      new Request(`http://localhost/api/v1/policies/${contentClass}`, {
        method: "PUT",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ min_size_bytes: 10, min_semantic_density: density, max_pass_number: 5 }),
      }),
      { params: Promise.resolve({ content_class: contentClass }) },
    ),
  );
}

describe("operator sessions", () => {
  let adminId = 0;
  beforeAll(async () => {
    adminId = (await createOperator({ name: "alice", role: "admin", password: PASSWORD }))!.id;
    await createOperator({ name: "victor", role: "viewer", password: PASSWORD });
    expect(await createOperator({ name: "Alice", role: "viewer", password: PASSWORD })).toBeNull();
  });

  it("sign-in sets an HttpOnly, SameSite=Lax cookie; Secure and __Host- only over https", async () => {
    const plain = await signIn("alice");
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.operator).toMatchObject({ name: "alice", role: "admin" });
    const set = plain.headers.get("set-cookie")!;
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).not.toMatch(/Secure/);
    const me = await read(await callRoute("/api/v1/session", "GET", { headers: cookie(tokenOf(set)) }));
    expect(me.body).toEqual({ auth: true, operator: { id: adminId, name: "alice", role: "admin" } });

    // X-Forwarded-Proto from a peer that is not a trusted proxy is a claim: no Secure cookie.
    const claimed = await signIn("alice", PASSWORD, { ...fromSocket("127.0.0.1"), "x-forwarded-proto": "https" });
    expect(claimed.headers.get("set-cookie")).toMatch(/^floorline_session=/);
    expect(claimed.headers.get("set-cookie")).not.toMatch(/Secure/);

    process.env.FLOORLINE_TRUSTED_PROXIES = "127.0.0.1";
    const viaProxy = { ...fromSocket("127.0.0.1"), "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.7" };
    const proxied = await signIn("alice", PASSWORD, viaProxy);
    const secure = proxied.headers.get("set-cookie")!;
    expect(secure).toMatch(/^__Host-floorline_session=[^;]+; Path=\/;/);
    expect(secure).toMatch(/; Secure/);
    expect(secure).not.toMatch(/Domain=/);
    const token = /^__Host-floorline_session=([^;]+)/.exec(secure)![1]!;
    const overHttps = await read(
      await callRoute("/api/v1/session", "GET", {
        headers: { ...viaProxy, cookie: `__Host-floorline_session=${token}` },
      }),
    );
    expect(overHttps.body.operator).toMatchObject({ name: "alice" });
    // Over https a cookie without the prefix is not a session (a sibling subdomain could plant one).
    const planted = await read(
      await callRoute("/api/v1/session", "GET", { headers: { ...viaProxy, ...cookie(token) } }),
    );
    expect(planted.body.operator).toBeNull();
  });

  it("a wrong password or unknown name is 401, and no cookie", async () => {
    const wrong = await signIn("alice", "not the password", { "x-forwarded-for": "10.9.9.9" });
    expectError(wrong as never, 401, "unauthenticated");
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expectError((await signIn("nobody", PASSWORD, { "x-forwarded-for": "10.9.9.8" })) as never, 401, "unauthenticated");
  });

  it("a malformed sign-in or operator body is 400 without quoting the password back", async () => {
    for (const body of [
      '{"name":"alice","password":hunter2-secret}',
      "hunter2-secret",
      '{"password":"hunter2-secret"',
    ]) {
      const signInAnswer = await read(
        await sessionRoute.POST(
          new Request("http://localhost/api/v1/session", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          }),
          { params: Promise.resolve({}) },
        ),
      );
      expectError(signInAnswer as never, 400, "invalid_json");
      expect(signInAnswer.text).not.toContain("hunter2");
      const admin = tokenOf((await signIn("alice")).headers.get("set-cookie"));
      const created = await callRoute("/api/v1/operators", "POST", { headers: cookie(admin) });
      expect(created.status).toBe(422);
      const raw = await (await import("@/app/api/v1/operators/route")).POST(
        new Request("http://localhost/api/v1/operators", {
          method: "POST",
          headers: { "content-type": "application/json", ...cookie(admin) },
          body: body.replace("alice", "newbie"),
        }),
        { params: Promise.resolve({}) },
      );
      const text = await raw.text();
      expect(raw.status).toBe(400);
      expect(text).not.toContain("hunter2");
    }
  });

  it("a session expires after the idle time, and is kept alive by use", async () => {
    process.env.FLOORLINE_SESSION_IDLE_MINUTES = "30";
    const token = tokenOf((await signIn("victor")).headers.get("set-cookie"));
    const start = Date.now();
    accessClock.now = () => new Date(start + 20 * 60_000);
    expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status).toBe(200);
    accessClock.now = () => new Date(start + 45 * 60_000);
    expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status).toBe(200);
    accessClock.now = () => new Date(start + 80 * 60_000);
    expectError(
      (await read(await callRoute("/api/v1/chains", "GET", { headers: cookie(token) }))) as never,
      401,
      "unauthenticated",
    );
  });

  it("a session ends at its absolute lifetime however busy", async () => {
    process.env.FLOORLINE_SESSION_MAX_HOURS = "2";
    process.env.FLOORLINE_SESSION_IDLE_MINUTES = "60";
    const token = tokenOf((await signIn("victor")).headers.get("set-cookie"));
    const start = Date.now();
    for (const minutes of [40, 80, 110]) {
      accessClock.now = () => new Date(start + minutes * 60_000);
      expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status, `${minutes} min`).toBe(200);
    }
    accessClock.now = () => new Date(start + 125 * 60_000);
    expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status).toBe(401);
  });

  it("sign-out ends the session", async () => {
    const token = tokenOf((await signIn("victor")).headers.get("set-cookie"));
    expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status).toBe(200);
    const out = await callRoute("/api/v1/session", "DELETE", { headers: cookie(token) });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status).toBe(401);
  });

  it("disabling an operator ends their sessions at once (revoked session)", async () => {
    const carol = (await createOperator({ name: "carol", role: "viewer", password: PASSWORD }))!;
    const token = tokenOf((await signIn("carol")).headers.get("set-cookie"));
    expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status).toBe(200);
    const admin = tokenOf((await signIn("alice")).headers.get("set-cookie"));
    const disabled = await operatorRoute.DELETE(
      new Request(`http://localhost/api/v1/operators/${carol.id}`, { method: "DELETE", headers: cookie(admin) }),
      { params: Promise.resolve({ id: String(carol.id) }) },
    );
    expect(disabled.status).toBe(200);
    expect((await callRoute("/api/v1/chains", "GET", { headers: cookie(token) })).status).toBe(401);
    expect((await signIn("carol")).status).toBe(401);
  });

  it("a viewer cannot change a floor; an admin can, and the version records who", async () => {
    const viewer = tokenOf((await signIn("victor")).headers.get("set-cookie"));
    expectError((await putPolicy("summary", cookie(viewer))) as never, 403, "insufficient_scope");
    const admin = tokenOf((await signIn("alice")).headers.get("set-cookie"));
    const saved = await putPolicy("summary", cookie(admin));
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.created_by).toBe("alice");
    const key = await createApiKey({ name: "deployer", scopes: ["admin"], createdBy: "alice" });
    const byKey = await putPolicy("summary", bearer(key.key), 0.31);
    expect(byKey.body.created_by).toBe("key:deployer");
    const versions = await read(await callRoute("/api/v1/policies/{content_class}", "GET", { headers: cookie(admin) }));
    expect(versions.status).toBe(200);
  });

  it("a cookie write from another origin is 403 cross_site_request and changes nothing", async () => {
    const admin = tokenOf((await signIn("alice")).headers.get("set-cookie"));
    const crossSite: Record<string, string>[] = [
      { origin: "http://127.0.0.1:4999" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site", origin: "http://localhost:4999" },
      { origin: "null" },
    ];
    for (const headers of crossSite) {
      expectError((await putPolicy("json", { ...cookie(admin), ...headers })) as never, 403, "cross_site_request");
    }
    expect((await putPolicy("json", { ...cookie(admin), "sec-fetch-site": "same-origin" })).status).toBe(201);
    expect(
      (await putPolicy("json", { ...cookie(admin), origin: "http://localhost", "sec-fetch-site": "same-origin" }, 0.4))
        .status,
    ).toBe(201);
  });
});
