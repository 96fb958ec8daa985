// "The first hour": a first API key turns access control on while no operator exists. Its
// answer says so; the sign-in page's action then makes the first admin for a request from
// this machine (or one that gives FLOORLINE_API_TOKEN), refuses every other request before
// reading its body, refuses once an operator exists, and of two creations at once keeps one.
// On both databases: the last rests on an advisory lock, which only PostgreSQL can race.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/index";
import { col, onlyRow, queryRows } from "@/db/sql";
import { createApiKey, createFirstOperator, listOperators } from "@/db/queries/access";
import { operators, sessions } from "@/db/schema";
import { createFirstAdmin, firstAdminOfferFor } from "@/app/_access/first-admin";
import * as sessionRoute from "@/app/api/v1/session/route";
import { driver, setUpTestDatabase } from "../support/database";
import { databaseUrl } from "../support/database-images";
import { bearer, callRoute, fromSocket, setUpCleanAccessState } from "./access-helpers";

setUpTestDatabase();
setUpCleanAccessState();
// What next.config.mjs's `experimental.authInterrupts` sets in the build: unauthorized() and
// forbidden() then throw the errors Next.js answers with 401 and 403.
const interrupts = process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS;
beforeAll(() => {
  process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS = "true";
});
afterAll(() => {
  if (interrupts === undefined) delete process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS;
  else process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS = interrupts;
});

const PASSWORD = "first admin password";
const TOKEN = "first-hour-token-that-is-long-enough-0123456789";

/** The status Next.js answers for an action that called unauthorized() / forbidden(), or "ran". */
async function outcome(promise: Promise<unknown>): Promise<number | "ran"> {
  try {
    await promise;
    return "ran";
  } catch (error) {
    const digest = String((error as { digest?: unknown }).digest ?? "");
    const status = /^NEXT_HTTP_ERROR_FALLBACK;(\d+)$/.exec(digest)?.[1];
    if (!status) throw error;
    return Number(status);
  }
}

const request = (extra: Record<string, string> = {}) => new Headers({ host: "127.0.0.1:3000", ...extra });

async function forgetOperators(): Promise<void> {
  const db = await getDb();
  await db.delete(sessions);
  await db.delete(operators);
}

async function signIn(name: string, password: string): Promise<number> {
  const response = await sessionRoute.POST(
    new Request("http://localhost/api/v1/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, password }),
    }),
    { params: Promise.resolve({}) },
  );
  return response.status;
}

describe("the first API key, while no operator exists", () => {
  it("says that access control is now on and how to make the first operator", async () => {
    const first = await callRoute("/api/v1/keys", "POST", { body: { name: "first", scopes: ["admin"] } });
    const created = await first.json();
    expect(first.status, JSON.stringify(created)).toBe(201);
    expect(created.notice).toMatch(/^Access control is now on/);
    expect(created.notice).toContain("/sign-in");
    expect(created.notice).toContain("npm run floorline -- operators create --name admin --role admin");
    // It really is on: the same request without a credential is refused now.
    expect((await callRoute("/api/v1/keys", "POST", { body: { name: "second", scopes: ["read"] } })).status).toBe(401);

    // A key made with a key: access control was on already, but the dashboard still has no one.
    const second = await (
      await callRoute("/api/v1/keys", "POST", {
        headers: bearer(created.key),
        body: { name: "second", scopes: ["read"] },
      })
    ).json();
    expect(second.notice).not.toMatch(/now on/);
    expect(second.notice).toContain("operators create");

    process.env.FLOORLINE_AUTH = "off";
    const off = await (await callRoute("/api/v1/keys", "POST", { body: { name: "off", scopes: ["read"] } })).json();
    expect(off.notice).toBeNull();
  });
});

describe("the first admin, offered on the sign-in page", () => {
  beforeAll(async () => {
    // Access control is on (a key exists) and no operator does: the lockout of issue 42.
    await createApiKey({ name: "agent", scopes: ["ingest"], createdBy: null });
  });

  it("is offered to this machine, and to nobody else without FLOORLINE_API_TOKEN", async () => {
    expect(await firstAdminOfferFor(request(fromSocket("127.0.0.1")))).toBe("this-machine");
    expect(await firstAdminOfferFor(request(fromSocket("::1", "::1")))).toBe("this-machine");
    expect(await firstAdminOfferFor(request(fromSocket("192.168.1.20")))).toBeNull();
    expect(await firstAdminOfferFor(request(fromSocket("127.0.0.1", "0.0.0.0")))).toBeNull();
    expect(await firstAdminOfferFor(request({ "x-forwarded-for": "203.0.113.5" }))).toBeNull();
  });

  it("is refused to every hostile request before anything is read or made", async () => {
    const valid = { name: "mallory", password: PASSWORD };
    const hostile: Array<[string, Record<string, string>, number]> = [
      ["a peer on the network", fromSocket("192.168.1.20"), 401],
      [
        "a proxy on this machine",
        { ...fromSocket("127.0.0.1", "127.0.0.1", true), "x-forwarded-for": "203.0.113.5" },
        401,
      ],
      ["a forwarding header, in-process", { "x-real-ip": "203.0.113.5" }, 401],
      ["a forged stamp", { "x-floorline-socket": "guess 127.0.0.1 127.0.0.1 direct" }, 401],
      ["a server on every address", fromSocket("127.0.0.1", "0.0.0.0"), 401],
      ["a forged Host", { ...fromSocket("127.0.0.1"), host: "evil.example" }, 403],
      ["a DNS-rebinding Host", { ...fromSocket("127.0.0.1"), host: "127.0.0.1.evil.example:3000" }, 403],
      ["another site's Origin", { ...fromSocket("127.0.0.1"), origin: "http://evil.example" }, 403],
      ["a cross-site fetch", { ...fromSocket("127.0.0.1"), "sec-fetch-site": "cross-site" }, 403],
    ];
    for (const [label, headers, status] of hostile) {
      expect(await outcome(createFirstAdmin(request(headers), valid)), label).toBe(status);
    }
    process.env.FLOORLINE_AUTH = "on";
    expect(await outcome(createFirstAdmin(request(fromSocket("127.0.0.1")), valid)), "FLOORLINE_AUTH=on").toBe(401);
    process.env.FLOORLINE_TRUSTED_PROXIES = "127.0.0.1";
    delete process.env.FLOORLINE_AUTH;
    expect(await outcome(createFirstAdmin(request(fromSocket("127.0.0.1")), valid)), "trusted proxies").toBe(401);
    expect(await listOperators()).toEqual([]);
  });

  it("answers bad input in words, and makes nothing", async () => {
    const local = request(fromSocket("127.0.0.1"));
    const short = await createFirstAdmin(local, { name: "alice", password: "short" });
    expect(short).toMatchObject({ ok: false, issues: [{ path: "password" }] });
    for (const input of [null, "alice", 42, [], { name: " ", password: PASSWORD }, { password: PASSWORD }]) {
      const answer = await createFirstAdmin(local, input);
      expect(answer.ok, JSON.stringify(input)).toBe(false);
    }
    expect(await listOperators()).toEqual([]);
  });

  it("with FLOORLINE_API_TOKEN, another machine may make it by giving the token", async () => {
    process.env.FLOORLINE_API_TOKEN = TOKEN;
    const away = request(fromSocket("198.51.100.7"));
    expect(await firstAdminOfferFor(away)).toBe("token");
    expect(await createFirstAdmin(away, { name: "tok", password: PASSWORD })).toMatchObject({ ok: false });
    expect(
      await createFirstAdmin(away, { name: "tok", password: PASSWORD, token: `${TOKEN.slice(0, -1)}X` }),
    ).toMatchObject({ ok: false, message: expect.stringContaining("FLOORLINE_API_TOKEN") });
    expect(await listOperators()).toEqual([]);
    expect(await createFirstAdmin(away, { name: "tok", password: PASSWORD, token: TOKEN })).toEqual({
      ok: true,
      name: "tok",
    });
    expect((await listOperators()).map((o) => [o.name, o.role])).toEqual([["tok", "admin"]]);
    await forgetOperators();
  });

  it("from this machine: made once, an admin who signs in as usual; then the offer is gone", async () => {
    const local = request(fromSocket("127.0.0.1"));
    expect(await createFirstAdmin(local, { name: "alice", password: PASSWORD })).toEqual({ ok: true, name: "alice" });
    const [alice, ...others] = await listOperators();
    expect(others).toEqual([]);
    expect(alice).toMatchObject({ name: "alice", role: "admin", disabled_at: null });
    expect(await signIn("alice", PASSWORD)).toBe(201);

    expect(await firstAdminOfferFor(local)).toBeNull();
    const again = await createFirstAdmin(local, { name: "bob", password: PASSWORD });
    expect(again).toMatchObject({ ok: false, message: expect.stringContaining("exists") });
    expect((await listOperators()).map((o) => o.name)).toEqual(["alice"]);
    await forgetOperators();
  });

  it("of several creations at once, exactly one is made", async () => {
    const local = request(fromSocket("127.0.0.1"));
    const answers = await Promise.all(
      ["ann", "ben", "cid", "dee", "eve", "fay"].map((name) => createFirstAdmin(local, { name, password: PASSWORD })),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(await listOperators()).toHaveLength(1);
    await forgetOperators();

    // The query alone, without the page's check in front of it.
    const made = await Promise.all(
      ["gus", "hal", "ida", "jon", "kim", "lea"].map((name) => createFirstOperator({ name, password: PASSWORD })),
    );
    expect(made.filter(Boolean)).toHaveLength(1);
    expect(await listOperators()).toHaveLength(1);
    await forgetOperators();
  });

  // Creations that each hash first arrive one after another; this makes them truly overlap.
  // Another connection locks the operators table against inserts (reads still pass), so every
  // creation that gets past its check waits at its insert, and all are let go at once.
  it.skipIf(driver !== "postgres")("of creations that overlap on PostgreSQL, exactly one is made", async () => {
    const db = await getDb();
    const name = onlyRow(await queryRows(db, sql`select current_database() as name`, { name: col.text })).name;
    const blocker = postgres(databaseUrl(process.env.TEST_DATABASE_URL ?? "", name), { max: 1, onnotice: () => {} });
    const creators = ["mia", "ned", "oli", "pam"];
    let made: unknown[] = [];
    let overlapping = 0;
    try {
      await blocker.begin(async (tx) => {
        await tx.unsafe("lock table operators in exclusive mode");
        const creating = Promise.all(creators.map((n) => createFirstOperator({ name: n, password: PASSWORD })));
        // Shorter than the statement timeout, which would cancel the waiting inserts.
        const deadline = Date.now() + 20_000;
        for (;;) {
          // Inside a transaction the activity view is a snapshot taken once: take a new one each time.
          await tx.unsafe("select pg_stat_clear_snapshot()");
          const [{ waiting }] = await tx.unsafe<[{ waiting: number }]>(
            "select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          overlapping = waiting;
          if (waiting >= creators.length || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        // Let go of the table when the transaction ends, then see what came of it.
        void creating.then((all) => {
          made = all;
        });
      });
      await vi.waitFor(() => expect(made).toHaveLength(creators.length), { timeout: 30_000 });
    } finally {
      await blocker.end();
    }
    expect(overlapping, "every creation was waiting on a lock at once").toBe(creators.length);
    expect(made.filter(Boolean)).toHaveLength(1);
    expect(await listOperators()).toHaveLength(1);
  });
});
