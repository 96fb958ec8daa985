// The one access decision (lib/auth/decision.ts `decideAccess`) as a permission matrix: every
// scope × every credential (none, a throttled wrong key, keys of each scope, the legacy token,
// each operator role) × FLOORLINE_AUTH on/off/auto × keys or operators existing or not × the
// token set or not × where the request came from. Two tables written out by hand say what
// the contract says (who may do what once a credential is needed; when one is needed); the
// matrix holds the function to their product. The surfaces that say the decision (API, pages,
// page gate, server actions) are held to it by the access integration and e2e suites.
import { describe, expect, it } from "vitest";
import {
  type AccessFacts,
  type AccessDecision,
  type AuthMode,
  type Credential,
  decideAccess,
  dependsOnCredentialCount,
  type Principal,
  type RequestFacts,
  requiresCredential,
} from "@/lib/auth/decision";
import { pageRefusal } from "@/lib/auth/page-gate";
import { SCOPES, type Scope } from "@/lib/http/registry";

const key = (...scopes: Array<"ingest" | "read" | "admin">): Principal => ({
  kind: "key",
  id: "0123456789abcdef",
  name: scopes.join("+"),
  scopes,
});
const operator = (role: "viewer" | "admin"): Principal => ({
  kind: "operator",
  id: 1,
  name: role,
  role,
  sessionId: "s",
  scopes: role === "admin" ? ["read", "admin"] : ["read"],
});

const CREDENTIALS: Record<string, Credential> = {
  none: { kind: "none" },
  throttled: { kind: "throttled", retryAfterSeconds: 7 },
  "key ingest": { kind: "principal", principal: key("ingest") },
  "key read": { kind: "principal", principal: key("read") },
  "key admin": { kind: "principal", principal: key("admin") },
  "key ingest+read": { kind: "principal", principal: key("ingest", "read") },
  "key all": { kind: "principal", principal: key("ingest", "read", "admin") },
  "legacy token": {
    kind: "principal",
    principal: { kind: "token", name: "FLOORLINE_API_TOKEN", scopes: ["ingest", "read", "admin"] },
  },
  viewer: { kind: "principal", principal: operator("viewer") },
  "admin operator": { kind: "principal", principal: operator("admin") },
};

type Outcome = "admit" | 401 | 403 | 429;

// Once a credential is needed: what each credential may do, by the scope asked for.
// biome-ignore format: the matrix reads as a table
const WHEN_NEEDED: Record<string, Record<Scope, Outcome>> = {
  //                   public    ingest    read      admin     ingest or read
  none:              { public: "admit", ingest: 401,     read: 401,     admin: 401,     "ingest or read": 401 },
  throttled:         { public: "admit", ingest: 429,     read: 429,     admin: 429,     "ingest or read": 429 },
  "key ingest":      { public: "admit", ingest: "admit", read: 403,     admin: 403,     "ingest or read": "admit" },
  "key read":        { public: "admit", ingest: 403,     read: "admit", admin: 403,     "ingest or read": "admit" },
  "key admin":       { public: "admit", ingest: 403,     read: 403,     admin: "admit", "ingest or read": 403 },
  "key ingest+read": { public: "admit", ingest: "admit", read: "admit", admin: 403,     "ingest or read": "admit" },
  "key all":         { public: "admit", ingest: "admit", read: "admit", admin: "admit", "ingest or read": "admit" },
  "legacy token":    { public: "admit", ingest: "admit", read: "admit", admin: "admit", "ingest or read": "admit" },
  viewer:            { public: "admit", ingest: 403,     read: "admit", admin: 403,     "ingest or read": "admit" },
  "admin operator":  { public: "admit", ingest: 403,     read: "admit", admin: "admit", "ingest or read": "admit" },
};

const request = (peer: string | null, listen = "127.0.0.1", more: Partial<RequestFacts> = {}): RequestFacts => ({
  socket: peer === null ? null : { peer, listen, forwarded: Boolean(more.forwarded) },
  client: peer ?? "unknown",
  viaTrustedProxy: false,
  forwarded: false,
  https: false,
  ...more,
});

// Where a request came from; `local` is whether it provably came from this machine.
const ORIGINS: Record<string, { facts: RequestFacts; trustedProxiesSet: boolean; local: boolean }> = {
  "this machine": { facts: request("127.0.0.1"), trustedProxiesSet: false, local: true },
  "this machine over IPv6": { facts: request("::1", "::1"), trustedProxiesSet: false, local: true },
  "another machine": { facts: request("203.0.113.9"), trustedProxiesSet: false, local: false },
  "this machine, server on every address": {
    facts: request("127.0.0.1", "0.0.0.0"),
    trustedProxiesSet: false,
    local: false,
  },
  "a proxy on this machine": {
    facts: request("127.0.0.1", "127.0.0.1", { forwarded: true }),
    trustedProxiesSet: false,
    local: false,
  },
  "a trusted proxy": {
    facts: request("127.0.0.1", "127.0.0.1", { viaTrustedProxy: true }),
    trustedProxiesSet: true,
    local: false,
  },
  "this machine, trusted proxies configured": {
    facts: request("127.0.0.1"),
    trustedProxiesSet: true,
    local: false,
  },
  "no socket (a bare next start)": { facts: request(null), trustedProxiesSet: false, local: false },
};

// When a credential is needed (for any scope but public): the contract, docs/access.md.
function credentialNeeded(mode: AuthMode, credentialsExist: boolean, legacyToken: boolean, local: boolean): boolean {
  if (mode === "on") return true;
  if (mode === "off") return false;
  return credentialsExist || legacyToken || !local;
}

function outcomeOf(decision: AccessDecision): Outcome {
  if ("admit" in decision) return "admit";
  return { unauthenticated: 401, insufficient_scope: 403, too_many_requests: 429 }[decision.refuse] as Outcome;
}

const MODES: AuthMode[] = ["on", "off", "auto"];

interface Row {
  label: string;
  facts: AccessFacts;
  credential: Credential;
  credentialName: string;
  need: Scope;
  needed: boolean;
}

const ROWS: Row[] = MODES.flatMap((mode) =>
  [false, true].flatMap((credentialsExist) =>
    [false, true].flatMap((legacyToken) =>
      Object.entries(ORIGINS).flatMap(([origin, o]) =>
        Object.entries(CREDENTIALS).flatMap(([credentialName, credential]) =>
          SCOPES.map((need) => ({
            label: `FLOORLINE_AUTH=${mode}, credentials ${credentialsExist ? "exist" : "none"}, token ${legacyToken ? "set" : "unset"}, ${origin}, ${credentialName} → ${need}`,
            facts: {
              mode,
              credentialsExist,
              legacyToken,
              trustedProxiesSet: o.trustedProxiesSet,
              request: o.facts,
            },
            credential,
            credentialName,
            need,
            needed: credentialNeeded(mode, credentialsExist, legacyToken, o.local),
          })),
        ),
      ),
    ),
  ),
);

describe("the access decision", () => {
  it("covers every scope, credential, mode and origin", () => {
    expect(ROWS.length).toBe(3 * 2 * 2 * Object.keys(ORIGINS).length * Object.keys(CREDENTIALS).length * SCOPES.length);
  });

  it("admits or refuses as the permission matrix says", () => {
    const wrong: string[] = [];
    for (const row of ROWS) {
      const expected: Outcome = row.needed ? (WHEN_NEEDED[row.credentialName]?.[row.need] as Outcome) : "admit";
      const actual = outcomeOf(decideAccess(row.facts, row.credential, row.need));
      if (actual !== expected) wrong.push(`${row.label}: ${actual}, expected ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it("admits as whoever the credential names, else as nobody", () => {
    const wrong: string[] = [];
    for (const row of ROWS) {
      const decision = decideAccess(row.facts, row.credential, row.need);
      if (!("admit" in decision)) continue;
      const expected = row.credential.kind === "principal" ? row.credential.principal : { kind: "anonymous" };
      if (JSON.stringify(decision.admit) !== JSON.stringify(expected)) wrong.push(row.label);
    }
    expect(wrong).toEqual([]);
  });

  it("says which scope was missing and how long a throttled address waits", () => {
    const facts = ROWS[0]!.facts;
    expect(decideAccess({ ...facts, mode: "on" }, CREDENTIALS["key read"]!, "admin")).toEqual({
      refuse: "insufficient_scope",
      scope: "admin",
    });
    expect(decideAccess({ ...facts, mode: "on" }, CREDENTIALS.throttled!, "read")).toEqual({
      refuse: "too_many_requests",
      retryAfterSeconds: 7,
    });
  });

  it("needs a credential exactly where the table says, and the database's fact only where it can matter", () => {
    const wrong: string[] = [];
    for (const row of ROWS) {
      if (requiresCredential(row.facts, row.need) !== (row.needed && row.need !== "public")) {
        wrong.push(`requiresCredential: ${row.label}`);
      }
      if (!dependsOnCredentialCount(row.facts, row.need)) {
        const flipped = { ...row.facts, credentialsExist: !row.facts.credentialsExist };
        const a = decideAccess(row.facts, row.credential, row.need);
        const b = decideAccess(flipped, row.credential, row.need);
        if (JSON.stringify(a) !== JSON.stringify(b)) wrong.push(`reads credentialsExist: ${row.label}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("a page's words for a refusal", () => {
  it("sends the signed-out to sign in, coming back to the page, and an operator without the role to 403", () => {
    expect(pageRefusal({ refuse: "unauthenticated" }, "/chains/a b?x=1")).toEqual({
      status: 307,
      location: "/sign-in?next=%2Fchains%2Fa%20b%3Fx%3D1",
    });
    expect(pageRefusal({ refuse: "insufficient_scope", scope: "admin" }, "/admin/keys")).toEqual({ status: 403 });
  });
});
