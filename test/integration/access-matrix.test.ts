// Long because the matrix and what holds across it share one server and one set of credentials.
// The auth matrix, generated from the route registry so a new route is covered the day it is
// added: every route and method × no key / malformed / unknown / revoked / each scope / the
// legacy token / each operator role → the contract's status. Then what holds whatever the
// credentials: the Host allow-list, the JSON content type, and when auth is on at all.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { col, queryRows } from "@/db/sql";
import { createApiKey, createOperator, revokeApiKey } from "@/db/queries/access";
import { signIn } from "@/db/queries/sessions";
import type { KeyScope } from "@/lib/auth/credentials";
import { dropLocalToken, newLocalToken } from "@/lib/auth/local-token";
import { setUpTestDatabase } from "../support/database";
import { type Answer, expectError } from "./api-helpers";
import { bearer, callRoute, cookie, fromSocket, ROUTE_METHODS, setUpCleanAccessState } from "./access-helpers";
import { secretOf } from "../support/keys";

setUpTestDatabase();
setUpCleanAccessState();

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

const guarded = ROUTE_METHODS.filter((r) => r.scope !== "public");
const open = ROUTE_METHODS.filter((r) => r.scope === "public");

// The matrix sends hundreds of bad credentials: each from an address of its own, so the
// per-address throttle of failed keys (tested in access-throttle.test.ts) stays out of it.
let nextPeer = 0;
const elsewhere = () => {
  nextPeer++;
  return fromSocket(`10.77.${Math.floor(nextPeer / 250)}.${(nextPeer % 250) + 1}`);
};
// The same for refusals that must come from this machine: loopback is all of 127.0.0.0/8.
let nextLoopback = 0;
const anotherLoopback = () => {
  nextLoopback++;
  return `127.9.${Math.floor(nextLoopback / 250)}.${(nextLoopback % 250) + 1}`;
};
const LEGACY_TOKEN = "legacy-token-value-that-is-long-enough-0123456789";

describe("with no credential anywhere (loopback, zero setup)", () => {
  it.each(guarded.map((r) => [`${r.method} ${r.pattern}`, r]))("%s needs no key", async (_, r) => {
    const a = await answer(await callRoute(r.pattern, r.method));
    expect([401, 403], a.text).not.toContain(a.status);
    expect(a.status, a.text).toBeLessThan(500);
  });

  it("turns on with FLOORLINE_AUTH=on, and on a non-loopback listen address", async () => {
    process.env.FLOORLINE_AUTH = "on";
    expectError(await answer(await callRoute("/api/v1/chains", "GET")), 401, "unauthenticated");
    delete process.env.FLOORLINE_AUTH;
    const onEveryAddress = fromSocket("127.0.0.1", "0.0.0.0");
    const refused = await answer(await callRoute("/api/v1/chains", "GET", { headers: onEveryAddress }));
    expectError(refused, 401, "unauthenticated");
    expect(refused.text).toContain("npm run floorline -- keys create");
    expect((await callRoute("/api/v1/chains", "GET")).status).toBe(200);
  });

  it("is open only to a loopback peer that came through no proxy", async () => {
    expect((await callRoute("/api/v1/chains", "GET", { headers: fromSocket("::1", "::1") })).status).toBe(200);
    const refused: Array<[string, Record<string, string>]> = [
      ["a peer on the network", fromSocket("192.168.1.20")],
      // The server marks these as forwarded in the stamp (Next.js adds X-Forwarded-For to every request after it).
      ["a proxy on this machine", { ...fromSocket("127.0.0.1", "127.0.0.1", true), "x-forwarded-for": "203.0.113.5" }],
      ["a Forwarded header, in-process", { forwarded: "for=203.0.113.5" }],
      ["an X-Real-IP header, in-process", { "x-real-ip": "203.0.113.5" }],
      ["an X-Forwarded-For header, in-process", { "x-forwarded-for": "203.0.113.5" }],
      ["a forged stamp", { "x-floorline-socket": "guess 127.0.0.1 127.0.0.1" }],
    ];
    for (const [label, headers] of refused) {
      const a = await answer(
        await callRoute("/api/v1/keys", "POST", { headers, body: { name: "x", scopes: ["admin"] } }),
      );
      expect(a.status, label).toBe(401);
      expect(a.text, label).toContain("npm run floorline -- keys create");
    }
    process.env.FLOORLINE_TRUSTED_PROXIES = "127.0.0.1";
    expect((await callRoute("/api/v1/chains", "GET")).status, "a trusted proxy is configured").toBe(401);
  });
});

describe("with keys", () => {
  const keys = {} as Record<KeyScope | "all" | "revoked", string>;
  const sessions = {} as Record<"viewer" | "admin", string>;
  beforeAll(async () => {
    for (const scope of ["ingest", "read", "admin"] as const) {
      keys[scope] = (await createApiKey({ name: `only-${scope}`, scopes: [scope], createdBy: null })).key;
    }
    keys.all = (await createApiKey({ name: "all", scopes: ["ingest", "read", "admin"], createdBy: null })).key;
    const revoked = await createApiKey({ name: "gone", scopes: ["ingest", "read", "admin"], createdBy: null });
    await revokeApiKey(revoked.id);
    keys.revoked = revoked.key;
    for (const role of ["viewer", "admin"] as const) {
      await createOperator({ name: `${role}-op`, role, password: "a long password" });
      const result = await signIn(`${role}-op`, "a long password", "127.0.0.1");
      if (!result.ok) throw new Error("sign-in failed");
      sessions[role] = result.token;
    }
  });

  const unknownKey = `fl_0123456789abcdef_${"A".repeat(43)}`;
  const refusals: Array<[string, Record<string, string>]> = [
    ["no key", {}],
    ["a malformed key", bearer("not-a-key")],
    ["an unknown key", bearer(unknownKey)],
    ["a Basic header", { authorization: "Basic YWRtaW46YWRtaW4=" }],
    ["an unknown session", cookie("nope")],
  ];

  describe.each(guarded.map((r) => [`${r.method} ${r.pattern} (${r.scope})`, r]))("%s", (_, r) => {
    it.each(refusals)("is 401 unauthenticated with %s", async (_label, headers) => {
      const a = await answer(await callRoute(r.pattern, r.method, { headers: { ...headers, ...elsewhere() } }));
      expectError(a, 401, "unauthenticated");
      expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });

    it("is 401 with a revoked key", async () => {
      expectError(
        await answer(await callRoute(r.pattern, r.method, { headers: { ...bearer(keys.revoked), ...elsewhere() } })),
        401,
        "unauthenticated",
      );
    });

    it.each(["ingest", "read", "admin", "all"] as const)(
      "with a key of scope %s: allowed exactly when it has the scope",
      async (scope) => {
        const a = await answer(await callRoute(r.pattern, r.method, { headers: bearer(keys[scope]) }));
        const admitted = r.scope === "ingest or read" ? ["ingest", "read"] : [r.scope];
        if (scope === "all" || admitted.includes(scope)) {
          expect([401, 403], a.text).not.toContain(a.status);
          expect(a.status, a.text).toBeLessThan(500);
        } else {
          const error = expectError(a, 403, "insufficient_scope");
          expect(error.message).toContain(`'${r.scope}'`);
        }
      },
    );

    it("with the legacy FLOORLINE_API_TOKEN: every scope", async () => {
      process.env.FLOORLINE_API_TOKEN = LEGACY_TOKEN;
      const a = await answer(await callRoute(r.pattern, r.method, { headers: bearer(LEGACY_TOKEN) }));
      expect([401, 403], a.text).not.toContain(a.status);
      const wrong = `${LEGACY_TOKEN.slice(0, -1)}X`;
      expectError(
        await answer(await callRoute(r.pattern, r.method, { headers: { ...bearer(wrong), ...elsewhere() } })),
        401,
        "unauthenticated",
      );
    });

    it("with the CLI's token: every scope from this machine, nothing from elsewhere or once dropped", async () => {
      const token = newLocalToken();
      try {
        for (const here of [fromSocket("127.0.0.1"), fromSocket("::1", "::1"), fromSocket("127.0.0.1", "0.0.0.0")]) {
          const a = await answer(await callRoute(r.pattern, r.method, { headers: { ...bearer(token), ...here } }));
          expect([401, 403], a.text).not.toContain(a.status);
          expect(a.status, a.text).toBeLessThan(500);
        }
        // A proxy on this machine connects from loopback too.
        const proxied = { ...fromSocket(anotherLoopback(), "127.0.0.1", true), "x-forwarded-for": "203.0.113.5" };
        for (const away of [elsewhere(), proxied]) {
          const refused = await answer(
            await callRoute(r.pattern, r.method, { headers: { ...bearer(token), ...away } }),
          );
          expectError(refused, 401, "unauthenticated");
        }
      } finally {
        dropLocalToken();
      }
      const dropped = await callRoute(r.pattern, r.method, {
        headers: { ...bearer(token), ...fromSocket(anotherLoopback()) },
      });
      expectError(await answer(dropped), 401, "unauthenticated");
    });

    it.each(["viewer", "admin"] as const)(
      "with a %s's session: read for both, admin for admins, never ingest",
      async (role) => {
        const a = await answer(await callRoute(r.pattern, r.method, { headers: cookie(sessions[role]) }));
        const allowed = r.scope === "read" || r.scope === "ingest or read" || (r.scope === "admin" && role === "admin");
        if (allowed) {
          expect([401, 403], a.text).not.toContain(a.status);
          expect(a.status, a.text).toBeLessThan(500);
        } else expectError(a, 403, "insufficient_scope");
      },
    );
  });

  it.each(open.map((r) => [`${r.method} ${r.pattern}`, r]))("%s stays open without a key", async (_, r) => {
    const a = await answer(await callRoute(r.pattern, r.method, { body: { name: "x", password: "y" } }));
    expect([403], a.text).not.toContain(a.status);
    if (r.pattern === "/api/v1/health") expect(a.status).toBe(200);
  });

  it("health shows no data", async () => {
    const a = await answer(await callRoute("/api/v1/health", "GET"));
    expect(a.body).toEqual({ status: "ok", database: "ok" });
  });

  it("FLOORLINE_AUTH=off opens everything again even with keys", async () => {
    process.env.FLOORLINE_AUTH = "off";
    expect((await callRoute("/api/v1/chains", "GET")).status).toBe(200);
  });

  it("a revoked key is refused on the very next request, and last_used_at is kept", async () => {
    const key = await createApiKey({ name: "short-lived", scopes: ["read"], createdBy: null });
    expect((await callRoute("/api/v1/chains", "GET", { headers: bearer(key.key) })).status).toBe(200);
    const listed = await answer(await callRoute("/api/v1/keys", "GET", { headers: bearer(keys.admin) }));
    const row = listed.body.items.find((k: { id: string }) => k.id === key.id);
    expect(row.last_used_at).not.toBeNull();
    expect(row.revoked_at).toBeNull();
    const revoke = await answer(
      await (await import("@/app/api/v1/keys/[id]/route")).DELETE(
        new Request(`http://localhost/api/v1/keys/${key.id}`, { method: "DELETE", headers: bearer(keys.admin) }),
        { params: Promise.resolve({ id: key.id }) },
      ),
    );
    expect(revoke.status, revoke.text).toBe(200);
    expect(revoke.body.revoked_at).not.toBeNull();
    expectError(
      await answer(await callRoute("/api/v1/chains", "GET", { headers: bearer(key.key) })),
      401,
      "unauthenticated",
    );
  });
});

describe("live event streams", () => {
  it("a stream opened with a key ends soon after the key is revoked", async () => {
    const writer = await createApiKey({ name: "stream-writer", scopes: ["ingest"], createdBy: null });
    const { POST } = await import("@/app/api/v1/passes/route");
    const stored = await POST(
      new Request("http://localhost/api/v1/passes", {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(writer.key) },
        body: JSON.stringify({
          chain_id: "streamed",
          pass_id: "s1",
          pass_number: 1,
          current_content_hash: "x",
          current_size_bytes: 1,
          is_parseable: true,
          schema_valid: true,
          semantic_density_score: 1,
        }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(stored.status).toBe(201);
    const reader = await createApiKey({ name: "stream-reader", scopes: ["read"], createdBy: null });
    const { GET } = await import("@/app/api/v1/chains/[chain_id]/events/route");
    const stream = await GET(
      new Request("http://localhost/api/v1/chains/streamed/events", { headers: bearer(reader.key) }),
      { params: Promise.resolve({ chain_id: "streamed" }) },
    );
    expect(stream.status).toBe(200);
    const body = stream.body!.getReader();
    expect(new TextDecoder().decode((await body.read()).value)).toContain("event: version");
    await revokeApiKey(reader.id);
    const started = Date.now();
    for (;;) {
      const { done } = await body.read();
      if (done) break;
    }
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});

describe("keys are never readable after creation", () => {
  it("the secret is in no table, no list and no later answer", async () => {
    const admin = await createApiKey({ name: "maker", scopes: ["admin"], createdBy: null });
    const created = await answer(
      await callRoute("/api/v1/keys", "POST", {
        headers: bearer(admin.key),
        body: { name: "agent-7", scopes: ["ingest", "read"] },
      }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: "agent-7", scopes: ["ingest", "read"] });
    expect(created.body.key).toMatch(/^fl_[0-9a-f]{16}_/);
    const secret = secretOf(created.body.key);
    expect(secret.length).toBeGreaterThanOrEqual(43);

    const db = await getDb();
    const tables = await queryRows(
      db,
      sql`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
      { name: col.text },
    );
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["api_keys", "operators", "sessions"]));
    for (const { name } of tables) {
      const [hit] = await queryRows(
        db,
        sql`select count(*)::int as n from ${sql.identifier(name)} as t where t::text like ${`%${secret}%`} or t::text like ${`%${created.body.key}%`}`,
        { n: col.int },
      );
      expect(hit?.n, `table ${name} holds the secret`).toBe(0);
    }
    const list = await answer(await callRoute("/api/v1/keys", "GET", { headers: bearer(admin.key) }));
    expect(list.text).not.toContain(secret);
    expect(list.body.items.find((k: { name: string }) => k.name === "agent-7")).not.toHaveProperty("key");
    // The key works.
    expect((await callRoute("/api/v1/chains", "GET", { headers: bearer(created.body.key) })).status).toBe(200);
  });

  it("lists keys in keyset pages that honour limit and cursor, each key once", async () => {
    const admin = await createApiKey({ name: "pager", scopes: ["admin"], createdBy: null });
    for (let i = 0; i < 7; i++) await createApiKey({ name: `paged-${i}`, scopes: ["read"], createdBy: null });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : "?limit=3";
      const page = await answer(await callRoute("/api/v1/keys", "GET", { headers: bearer(admin.key), query }));
      expect(page.status, page.text).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.items.map((k: { id: string }) => k.id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    const all = await answer(
      await callRoute("/api/v1/keys", "GET", { headers: bearer(admin.key), query: "?limit=500" }),
    );
    expect(all.body.next_cursor).toBeNull();
    expect(seen).toEqual(all.body.items.map((k: { id: string }) => k.id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(seen.length / 3));
    const bad = await answer(
      await callRoute("/api/v1/keys", "GET", { headers: bearer(admin.key), query: "?cursor=nonsense" }),
    );
    expectError(bad, 422, "invalid_query");
  });

  it("creating a key checks its input", async () => {
    const admin = await createApiKey({ name: "maker2", scopes: ["admin"], createdBy: null });
    for (const body of [
      { name: "x", scopes: [] },
      { name: "x", scopes: ["write"] },
      { name: "", scopes: ["read"] },
      { scopes: ["read"] },
    ]) {
      expectError(
        await answer(await callRoute("/api/v1/keys", "POST", { headers: bearer(admin.key), body })),
        422,
        "validation_failed",
      );
    }
  });
});

describe("browser defences, always on", () => {
  it("a write with no Content-Type, or a non-JSON one, is 415 and writes nothing", async () => {
    process.env.FLOORLINE_AUTH = "off";
    const { POST } = await import("@/app/api/v1/passes/route");
    const receipt = JSON.stringify({
      chain_id: "no-cors",
      pass_id: "p1",
      pass_number: 1,
      current_content_hash: "x",
      current_size_bytes: 1,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 1,
    });
    const types: Record<string, string>[] = [
      {},
      { "content-type": "text/plain" },
      { "content-type": "application/x-www-form-urlencoded" },
    ];
    for (const headers of types) {
      const a = await answer(
        await POST(
          new Request("http://localhost/api/v1/passes", { method: "POST", headers, body: new Blob([receipt]) }),
          {
            params: Promise.resolve({}),
          },
        ),
      );
      expectError(a, 415, "unsupported_media_type");
    }
    const db = await getDb();
    const [row] = await queryRows(db, sql`select count(*)::int as n from passes where chain_id = 'no-cors'`, {
      n: col.int,
    });
    expect(row?.n).toBe(0);
  });

  it.each(ROUTE_METHODS.map((r) => [`${r.method} ${r.pattern}`, r]))(
    "%s refuses a Host that is not ours",
    async (_, r) => {
      process.env.FLOORLINE_AUTH = "off";
      const a = await answer(await callRoute(r.pattern, r.method, { headers: { host: "evil.test:3000" } }));
      expectError(a, 403, "host_not_allowed");
    },
  );

  it("takes FLOORLINE_ALLOWED_HOSTS", async () => {
    process.env.FLOORLINE_AUTH = "off";
    process.env.FLOORLINE_ALLOWED_HOSTS = "floorline.example.com";
    expect((await callRoute("/api/v1/chains", "GET", { headers: { host: "floorline.example.com" } })).status).toBe(200);
    expectError(
      await answer(await callRoute("/api/v1/chains", "GET", { headers: { host: "127.0.0.1:3000" } })),
      403,
      "host_not_allowed",
    );
  });
});
