// Guessing, through the real sign-in handler and API-key check on a real database (PGlite,
// and PostgreSQL with TEST_DATABASE_URL, where the parallel guesses run on separate
// connections as separate instances would): a burst at one name cannot exceed the limit,
// a forged X-Forwarded-For neither resets nor dodges it, a spray under other names never
// locks the admin out, a window's end lets the right password in, old password hashes are
// upgraded at sign-in, and bad API keys are throttled per address.
import { sql } from "drizzle-orm";
import { scryptSync } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { col, queryRows } from "@/db/sql";
import { accessClock, createApiKey, createOperator } from "@/db/queries/access";
import { scryptCost } from "@/lib/auth/credentials";
import { hashGate } from "@/lib/auth/hash-gate";
import { BEARER_FAILURE_LIMIT, SIGN_IN_FAILURE_RATE, SIGN_IN_PAIR_LIMIT } from "@/lib/auth/throttle";
import { setUpTestDatabase } from "../support/database";
import { bearer, callRoute, fromSocket, setUpCleanAccessState } from "./access-helpers";
import * as sessionRoute from "@/app/api/v1/session/route";

setUpTestDatabase();
setUpCleanAccessState();

const PASSWORD = "correct horse battery";

async function signIn(name: string, password: string, headers: Record<string, string>) {
  const response = await sessionRoute.POST(
    new Request("http://localhost/api/v1/session", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ name, password }),
    }),
    { params: Promise.resolve({}) },
  );
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get("retry-after"), text };
}

describe("sign-in throttling", () => {
  beforeAll(async () => {
    await createOperator({ name: "admin", role: "admin", password: PASSWORD });
    await createOperator({ name: "target", role: "viewer", password: PASSWORD });
  });

  it(`200 parallel wrong guesses at one name from one address: at most ${SIGN_IN_PAIR_LIMIT} are checked`, async () => {
    const attacker = fromSocket("203.0.113.10");
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => signIn("target", `wrong guess ${i}`, attacker)),
    );
    const statuses = answers.map((a) => a.status);
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(SIGN_IN_PAIR_LIMIT);
    expect(statuses.filter((s) => s === 429).length).toBe(200 - checked);
    for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.retryAfter)).toBeGreaterThan(0);
    // Even the right password waits from there now.
    expect((await signIn("target", PASSWORD, attacker)).status).toBe(429);
  });

  it("a forged X-Forwarded-For from an untrusted peer neither resets nor dodges the limit", async () => {
    for (const forged of ["198.51.100.1", "127.0.0.1", "10.0.0.1, 10.0.0.2"]) {
      const a = await signIn("target", PASSWORD, { ...fromSocket("203.0.113.10"), "x-forwarded-for": forged });
      expect(a.status, forged).toBe(429);
      const b = await signIn("target", PASSWORD, { ...fromSocket("203.0.113.10"), "x-real-ip": forged });
      expect(b.status, forged).toBe(429);
    }
  });

  it("the same name from another address is not locked out, and the window's end lets the pair in", async () => {
    expect((await signIn("target", PASSWORD, fromSocket("198.51.100.20"))).status).toBe(201);
    const later = new Date(Date.now() + 16 * 60_000);
    accessClock.now = () => later;
    expect((await signIn("target", PASSWORD, fromSocket("203.0.113.10"))).status).toBe(201);
  });

  it("failures under other names from the admin's own address never lock the admin out", async () => {
    const shared = fromSocket("192.0.2.50");
    for (let i = 0; i < 12; i++) {
      expect((await signIn(`someone-${i}`, "wrong password", shared)).status).toBe(401);
    }
    expect((await signIn("admin", PASSWORD, shared)).status).toBe(201);
  });

  it("behind a trusted proxy, each client behind it has its own limit", async () => {
    process.env.FLOORLINE_TRUSTED_PROXIES = "127.0.0.1";
    const viaProxy = (client: string) => ({ ...fromSocket("127.0.0.1"), "x-forwarded-for": client });
    for (let i = 0; i < SIGN_IN_PAIR_LIMIT; i++) {
      expect((await signIn("admin", "wrong password", viaProxy("203.0.113.77"))).status).toBe(401);
    }
    expect((await signIn("admin", "wrong password", viaProxy("203.0.113.77"))).status).toBe(429);
    // The client cannot pick its address: the proxy appends the one it saw, and that is read.
    expect((await signIn("admin", PASSWORD, viaProxy("198.51.100.99, 203.0.113.77"))).status).toBe(429);
    expect((await signIn("admin", PASSWORD, viaProxy("198.51.100.99"))).status).toBe(201);
  });

  it("a hash made with the old parameters signs in, and is upgraded", async () => {
    const salt = Buffer.alloc(16, 9);
    const { N } = scryptCost();
    const key = scryptSync(PASSWORD, salt, 32, { N: N / 2, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const old = ["scrypt", N / 2, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
    const db = await getDb();
    await db.execute(sql`insert into operators (name, role, password_hash) values ('legacy', 'viewer', ${old})`);
    expect((await signIn("legacy", PASSWORD, fromSocket("192.0.2.60"))).status).toBe(201);
    const [row] = await queryRows(db, sql`select password_hash as hash from operators where name = 'legacy'`, {
      hash: col.text,
    });
    expect(row?.hash).toMatch(new RegExp(`^scrypt\\$${N}\\$8\\$1\\$`));
    expect((await signIn("legacy", PASSWORD, fromSocket("192.0.2.60"))).status).toBe(201);
  });
});

describe("the cost of a spray", () => {
  it("hashes one at a time: a spray waits in the gate's line, leaving libuv's pool free", async () => {
    // 10 names, 10 addresses: no limit applies, each attempt costs a hash. Unbounded, they
    // would fill libuv's 4 threads, and a DNS lookup would wait behind a hash. With one slot,
    // nine of them stand in the gate's line while one hashes. (Not timed: a lookup's time on a
    // loaded two-core machine said more about the machine than about the gate.)
    // Names that exist: each wrong password costs a hash however many failures came before
    // (made-up names past the server's failure rate get none, as the spray test below shows).
    for (let i = 0; i < 10; i++) await createOperator({ name: `sprayed-${i}`, role: "viewer", password: PASSWORD });
    const gate = hashGate();
    let done = false;
    const spray = Promise.all(
      Array.from({ length: 10 }, (_, i) => signIn(`sprayed-${i}`, "wrong password", fromSocket(`192.0.2.${100 + i}`))),
    ).finally(() => {
      done = true;
    });
    let longestLine = 0;
    while (!done) {
      const { first, normal, slow } = gate.queued();
      longestLine = Math.max(longestLine, first + normal + slow);
      await new Promise((r) => setTimeout(r, 10));
    }
    const answers = await spray;
    expect(answers.every((a) => a.status === 401)).toBe(true);
    expect(gate.slots).toBe(1);
    expect(longestLine).toBeGreaterThanOrEqual(5);
    expect(gate.queued()).toEqual({ first: 0, normal: 0, slow: 0 });
  });
});

describe("a spray of made-up names from many addresses", () => {
  it("costs no hash past the server's failure rate, and an operator who signed in lately goes first", async () => {
    await createOperator({ name: "home-admin", role: "admin", password: PASSWORD });
    // The admin signed in before (last_sign_in_at is set), from an address of their own.
    expect((await signIn("home-admin", PASSWORD, fromSocket("192.0.2.200"))).status).toBe(201);
    const gate = hashGate();
    const hashedBefore = gate.completed;
    // 100 failures with made-up names over ten addresses: below every per-address limit.
    let done = false;
    const spray = Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        signIn(`made-up-${i}`, "wrong password", fromSocket(`198.51.100.${10 + (i % 10)}`)),
      ),
    ).finally(() => {
      done = true;
    });
    // Once a line has formed, the admin signs in from home.
    while (!done && gate.queued().normal < 3) await new Promise((r) => setTimeout(r, 5));
    const atAdmin = gate.completed;
    const admin = await signIn("home-admin", PASSWORD, fromSocket("192.0.2.200"));
    const hashedForAdmin = gate.completed - atAdmin;
    const answers = await spray;
    expect(admin.status).toBe(201);
    // The admin's hash waited for at most the one running: the first line goes before the normal one.
    expect(hashedForAdmin).toBeLessThanOrEqual(2);
    expect(answers.every((a) => a.status === 401)).toBe(true);
    // Past the rate, made-up names were answered without a hash: far fewer than 100 ran.
    expect(gate.completed - hashedBefore - 2).toBeLessThanOrEqual(SIGN_IN_FAILURE_RATE + 1);
  });
});

describe("API key throttling", () => {
  it(`past ${BEARER_FAILURE_LIMIT} bad keys an address's wrong keys are refused; its valid keys and other addresses are not`, async () => {
    const good = await createApiKey({ name: "reader", scopes: ["read"], createdBy: null });
    const from = fromSocket("203.0.113.30");
    const unknown = `fl_0123456789abcdef_${"B".repeat(43)}`;
    const answers = [];
    for (let i = 0; i < BEARER_FAILURE_LIMIT; i++) {
      answers.push((await callRoute("/api/v1/chains", "GET", { headers: { ...bearer(unknown), ...from } })).status);
    }
    expect(answers.every((s) => s === 401)).toBe(true);
    const refused = await callRoute("/api/v1/chains", "GET", { headers: { ...bearer(unknown), ...from } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A malformed Authorization counts the same, and is refused the same from there.
    expect((await callRoute("/api/v1/chains", "GET", { headers: { authorization: "Basic x", ...from } })).status).toBe(
      429,
    );
    // A valid key from that very address still works: only wrong ones wait.
    expect((await callRoute("/api/v1/chains", "GET", { headers: { ...bearer(good.key), ...from } })).status).toBe(200);
    const spoofed = { ...bearer(unknown), ...from, "x-forwarded-for": "198.51.100.3" };
    expect((await callRoute("/api/v1/chains", "GET", { headers: spoofed })).status).toBe(429);
    const elsewhere = { ...bearer(unknown), ...fromSocket("198.51.100.3") };
    expect((await callRoute("/api/v1/chains", "GET", { headers: elsewhere })).status).toBe(401);
    // A minute later the address's wrong keys are answered 401 again.
    const later = new Date(Date.now() + 61_000);
    accessClock.now = () => later;
    expect((await callRoute("/api/v1/chains", "GET", { headers: { ...bearer(unknown), ...from } })).status).toBe(401);
  });
});
