// lib/auth on its own: key format and hashing, constant-time comparison, passwords, and the
// pure access decisions (when auth is on, hosts, same origin, scopes, throttling).
import { describe, expect, it } from "vitest";
import {
  accessStartupMessage,
  allowedHostsOf,
  authReason,
  bearerTokenOf,
  fillPattern,
  hasScope,
  hostAllowed,
  isHttps,
  isLoopbackHost,
  isSameOrigin,
  crossSiteRefusal,
  keyCreatedNotice,
  mayReadOriginals,
  safeNextPath,
  scopesOfRole,
  sessionCookie,
  sessionTokenOf,
} from "@/lib/auth/access";
import { firstAdminOffer, type RequestFacts } from "@/lib/auth/decision";
import {
  constantTimeEqual,
  generateApiKey,
  hashPassword,
  needsRehash,
  parseApiKey,
  scryptCost,
  secretMatches,
  verifyPassword,
} from "@/lib/auth/credentials";
import { localReach } from "@/lib/auth/local-token";

describe("API keys", () => {
  it("look like fl_<id>_<secret> with at least 32 random bytes of secret, and parse back", () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).toMatch(/^fl_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(a.key).not.toBe(b.key);
    const parsed = parseApiKey(a.key)!;
    expect(parsed.id).toBe(a.id);
    expect(Buffer.from(parsed.secret, "base64url").length).toBeGreaterThanOrEqual(32);
    expect(a.secretHash).not.toContain(parsed.secret);
    expect(secretMatches(parsed.secret, a.secretHash)).toBe(true);
    expect(secretMatches(`${parsed.secret}x`, a.secretHash)).toBe(false);
    expect(secretMatches(parseApiKey(b.key)!.secret, a.secretHash)).toBe(false);
  });

  it("refuses anything that is not a key", () => {
    for (const text of [
      "",
      "fl_",
      "fl_abc_def",
      "xx_0123456789abcdef_" + "a".repeat(43),
      "fl_0123456789ABCDEF_" + "a".repeat(43),
    ]) {
      expect(parseApiKey(text), text).toBeNull();
    }
  });

  it("compares tokens equal only when identical, whatever the lengths", () => {
    expect(constantTimeEqual("s3cret-token", "s3cret-token")).toBe(true);
    expect(constantTimeEqual("s3cret-token", "s3cret")).toBe(false);
    expect(constantTimeEqual("s3cret", "s3cret-token")).toBe(false);
    expect(constantTimeEqual("", "x")).toBe(false);
  });

  it("takes only Bearer", () => {
    expect(bearerTokenOf("Bearer abc")).toBe("abc");
    expect(bearerTokenOf("bearer abc")).toBe("abc");
    expect(bearerTokenOf("Basic abc")).toBeNull();
    expect(bearerTokenOf("abc")).toBeNull();
    expect(bearerTokenOf("Bearer a b")).toBeNull();
  });
});

describe("passwords", () => {
  it("are scrypt hashes with their own salt, verified in constant time", async () => {
    const one = await hashPassword("correct horse battery");
    const two = await hashPassword("correct horse battery");
    expect(one).toMatch(new RegExp(`^scrypt\\$${scryptCost().N}\\$8\\$1\\$`));
    expect(needsRehash(one)).toBe(false);
    expect(one).not.toBe(two);
    expect(one).not.toContain("correct");
    expect(await verifyPassword("correct horse battery", one)).toBe(true);
    expect(await verifyPassword("correct horse batterY", one)).toBe(false);
    expect(await verifyPassword("x", "not a hash")).toBe(false);
  });

  it("cost N=2^17 in production and anywhere else but under vitest, where it is 2^14", () => {
    expect(scryptCost({ NODE_ENV: "production" })).toEqual({ N: 2 ** 17, r: 8, p: 1, keylen: 32 });
    expect(scryptCost({ NODE_ENV: "development" }).N).toBe(2 ** 17);
    expect(scryptCost({}).N).toBe(2 ** 17);
    expect(scryptCost({ NODE_ENV: "tests" }).N).toBe(2 ** 17);
    expect(scryptCost({ NODE_ENV: "test" }).N).toBe(2 ** 14);
  });

  it("still verify hashes made with weaker parameters, which then need a rehash; refuse parameters we never wrote", async () => {
    // Made with half today's N for the password "correct horse battery".
    const { scryptSync } = await import("node:crypto");
    const salt = Buffer.alloc(16, 3);
    const N = scryptCost().N / 2;
    const key = scryptSync("correct horse battery", salt, 32, { N, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const old = ["scrypt", N, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
    expect(await verifyPassword("correct horse battery", old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
    // A stored N of 2^24 would ask for 16 GiB: refused without hashing.
    const huge = ["scrypt", 2 ** 24, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
    expect(await verifyPassword("correct horse battery", huge)).toBe(false);
  });
});

describe("when auth is on", () => {
  const base = { mode: "auto" as const, listenHost: "127.0.0.1", credentialsExist: false, legacyToken: false };
  it("is off only for a loopback server with no credentials, unless forced", () => {
    expect(authReason(base)).toBeNull();
    expect(authReason({ ...base, listenHost: "::1" })).toBeNull();
    expect(authReason({ ...base, listenHost: "localhost" })).toBeNull();
    expect(authReason({ ...base, credentialsExist: true })).not.toBeNull();
    expect(authReason({ ...base, legacyToken: true })).not.toBeNull();
    expect(authReason({ ...base, listenHost: "0.0.0.0" })).toContain("0.0.0.0");
    expect(authReason({ ...base, listenHost: "10.1.2.3" })).not.toBeNull();
    expect(authReason({ ...base, mode: "on" })).not.toBeNull();
    expect(authReason({ ...base, mode: "off", credentialsExist: true, listenHost: "0.0.0.0" })).toBeNull();
  });

  it("says loudly when forced off, and how to create the first credential when on with none", () => {
    expect(accessStartupMessage({ FLOORLINE_AUTH: "off" }, true)).toMatchObject({ warn: true });
    const none = accessStartupMessage({ HOST: "0.0.0.0" }, false);
    expect(none.warn).toBe(true);
    expect(none.text).toContain("npm run floorline -- keys create");
    expect(accessStartupMessage({}, false).warn).toBe(false);
    expect(accessStartupMessage({ HOST: "0.0.0.0" }, true).text).toContain("FLOORLINE_ALLOWED_HOSTS");
    expect(accessStartupMessage({ HOST: "0.0.0.0", FLOORLINE_ALLOWED_HOSTS: "a.test" }, true).warn).toBe(false);
  });
});

describe("the first admin, while no operator exists", () => {
  const facts = (peer: string, listen = "127.0.0.1", forwarded = false): RequestFacts => ({
    socket: { peer, listen, forwarded },
    client: peer,
    viaTrustedProxy: false,
    forwarded,
    https: false,
  });
  const base = {
    mode: "auto" as const,
    operatorsExist: false,
    legacyToken: false,
    trustedProxiesSet: false,
    request: facts("127.0.0.1"),
  };

  it("is offered to this machine, and to the holder of FLOORLINE_API_TOKEN elsewhere", () => {
    expect(firstAdminOffer(base)).toBe("this-machine");
    expect(firstAdminOffer({ ...base, request: facts("::1", "::1") })).toBe("this-machine");
    expect(firstAdminOffer({ ...base, legacyToken: true })).toBe("this-machine");
    expect(firstAdminOffer({ ...base, legacyToken: true, request: facts("203.0.113.9") })).toBe("token");
    expect(firstAdminOffer({ ...base, mode: "on", legacyToken: true })).toBe("token");
  });

  it("is not offered to another machine, through a proxy, on every address, when forced, or once an operator exists", () => {
    expect(firstAdminOffer({ ...base, request: facts("203.0.113.9") })).toBeNull();
    expect(firstAdminOffer({ ...base, request: facts("127.0.0.1", "127.0.0.1", true) })).toBeNull();
    expect(firstAdminOffer({ ...base, request: facts("127.0.0.1", "0.0.0.0") })).toBeNull();
    expect(firstAdminOffer({ ...base, request: { ...facts("127.0.0.1"), socket: null } })).toBeNull();
    expect(firstAdminOffer({ ...base, trustedProxiesSet: true })).toBeNull();
    expect(firstAdminOffer({ ...base, mode: "on" })).toBeNull();
    expect(firstAdminOffer({ ...base, mode: "off", legacyToken: true })).toBeNull();
    expect(firstAdminOffer({ ...base, operatorsExist: true })).toBeNull();
    expect(
      firstAdminOffer({ ...base, operatorsExist: true, legacyToken: true, request: facts("203.0.113.9") }),
    ).toBeNull();
  });

  it("a key made while none exists says what it changed and how to make one", () => {
    const turnedOn = keyCreatedNotice({ turnedAccessOn: true, operatorsExist: false });
    expect(turnedOn).toMatch(/^Access control is now on/);
    expect(turnedOn).toContain("/sign-in");
    expect(turnedOn).toContain("npm run floorline -- operators create --name admin --role admin");
    const already = keyCreatedNotice({ turnedAccessOn: false, operatorsExist: false });
    expect(already).not.toContain("now on");
    expect(already).toContain("operators create");
    expect(keyCreatedNotice({ turnedAccessOn: true, operatorsExist: true })).toBeNull();
  });
});

describe("how the CLI reaches the server on its machine", () => {
  const loopback = allowedHostsOf({});
  it("connects over loopback with a Host the server answers to", () => {
    expect(localReach("127.0.0.1", 3000, loopback)).toEqual({ address: "127.0.0.1", host: "127.0.0.1:3000" });
    expect(localReach("::1", 3000, loopback)).toEqual({ address: "::1", host: "[::1]:3000" });
    expect(localReach("0.0.0.0", 8080, loopback)).toEqual({ address: "127.0.0.1", host: "127.0.0.1:8080" });
    expect(localReach("::", 8080, loopback)).toEqual({ address: "::1", host: "[::1]:8080" });
    const named = ["floorline.example.com"];
    const reach = localReach("0.0.0.0", 8080, named);
    expect(reach).toEqual({ address: "127.0.0.1", host: "floorline.example.com:8080" });
    expect(hostAllowed(reach!.host, named)).toBe(true);
    expect(hostAllowed(localReach("0.0.0.0", 1, ["*.example.com"])!.host, ["*.example.com"])).toBe(true);
  });

  it("cannot reach a server that listens on one address other than loopback", () => {
    expect(localReach("192.0.2.10", 3000, ["192.0.2.10"])).toBeNull();
  });
});

describe("hosts", () => {
  it("knows loopback", () => {
    for (const h of ["localhost", "LOCALHOST:3000", "127.0.0.1:3000", "127.9.9.9", "[::1]:3000", "app.localhost"]) {
      expect(isLoopbackHost(h), h).toBe(true);
    }
    for (const h of [
      "0.0.0.0",
      "evil.test",
      "10.0.0.1",
      "localhost.evil.test",
      "127.0.0.1:3200@evil.com",
      "[::1].evil.com",
      "[::1]:3000.evil.com",
      "localhost:x@evil.com",
    ])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it("allows loopback and the listen address by default, a DNS-rebinding name never", () => {
    const loop = allowedHostsOf({});
    expect(hostAllowed("127.0.0.1:3000", loop)).toBe(true);
    expect(hostAllowed("localhost:3000", loop)).toBe(true);
    expect(hostAllowed("evil.test", loop)).toBe(false);
    expect(hostAllowed("evil.test:3000", loop)).toBe(false);
    expect(hostAllowed(null, loop)).toBe(false);
    const lan = allowedHostsOf({ HOST: "192.168.1.5" });
    expect(hostAllowed("192.168.1.5:3000", lan)).toBe(true);
    expect(hostAllowed("evil.test", lan)).toBe(false);
    expect(hostAllowed("10.0.0.1", allowedHostsOf({ HOST: "0.0.0.0" }))).toBe(false);
  });

  it("takes FLOORLINE_ALLOWED_HOSTS, with *.domain wildcards", () => {
    const allowed = allowedHostsOf({ FLOORLINE_ALLOWED_HOSTS: "floorline.example.com, *.corp.test" });
    expect(hostAllowed("floorline.example.com", allowed)).toBe(true);
    expect(hostAllowed("a.corp.test:443", allowed)).toBe(true);
    expect(hostAllowed("corp.test.evil", allowed)).toBe(false);
    expect(hostAllowed("127.0.0.1", allowed)).toBe(false);
  });
});

describe("same origin", () => {
  const h = (init: Record<string, string>) => new Headers(init);
  it("asks Sec-Fetch-Site and Origin (against Host), and every one sent must agree", () => {
    expect(isSameOrigin(h({ "sec-fetch-site": "same-origin" }), "127.0.0.1:3000")).toBe(true);
    expect(isSameOrigin(h({ "sec-fetch-site": "cross-site" }), "127.0.0.1:3000")).toBe(false);
    expect(isSameOrigin(h({ "sec-fetch-site": "same-site" }), "127.0.0.1:3000")).toBe(false);
    expect(isSameOrigin(h({ origin: "http://127.0.0.1:3000" }), "127.0.0.1:3000")).toBe(true);
    expect(isSameOrigin(h({ origin: "http://127.0.0.1:4000" }), "127.0.0.1:3000")).toBe(false);
    expect(isSameOrigin(h({ origin: "null" }), "127.0.0.1:3000")).toBe(false);
    expect(isSameOrigin(h({ origin: "http://x.test" }), "x.test", "https")).toBe(false);
    expect(isSameOrigin(h({ origin: "https://x.test" }), "x.test", "https")).toBe(true);
    // Every signal sent must agree: one saying same-origin does not cover the other.
    const both = { "sec-fetch-site": "same-origin", origin: "http://evil.example" };
    expect(isSameOrigin(h(both), "127.0.0.1:3000")).toBe(false);
    expect(
      isSameOrigin(h({ "sec-fetch-site": "same-origin", origin: "http://127.0.0.1:3000" }), "127.0.0.1:3000"),
    ).toBe(true);
  });

  it("refuses a cross-site write, never a read", () => {
    const away = h({ "sec-fetch-site": "cross-site" });
    expect(crossSiteRefusal("GET", away, "127.0.0.1:3000", null)).toBeNull();
    expect(crossSiteRefusal("POST", h({ "sec-fetch-site": "same-origin" }), "127.0.0.1:3000", null)).toBeNull();
    const refusal = crossSiteRefusal("POST", away, "127.0.0.1:3000", null);
    expect(refusal?.status).toBe(403);
    expect(refusal?.code).toBe("cross_site_request");
  });
});

describe("small pieces", () => {
  it("scopes, next paths, patterns, cookies, https, throttling", () => {
    expect(hasScope({ kind: "anonymous" }, "admin")).toBe(true);
    expect(hasScope({ kind: "key", id: "k", name: "k", scopes: ["read"] }, "admin")).toBe(false);
    expect(safeNextPath("//evil.test")).toBe("/");
    expect(safeNextPath("https://evil.test")).toBe("/");
    expect(safeNextPath("/chains/x")).toBe("/chains/x");
    expect(fillPattern("/chains/{chain_id}", { chain_id: "a b" })).toBe("/chains/a%20b");
    expect(fillPattern("/chains/{chain_id}", { chain_id: "a%20b" })).toBe("/chains/a%20b");
    const cookie = sessionCookie("tok", true, 60);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Secure");
    expect(cookie).toMatch(/^__Host-floorline_session=tok; Path=\//);
    expect(cookie).not.toContain("Domain");
    expect(sessionCookie("tok", false, 60)).not.toContain("Secure");
    expect(sessionCookie("tok", false, 60)).toMatch(/^floorline_session=tok;/);
    expect(sessionTokenOf("a=1; floorline_session=tok; b=2")).toBe("tok");
    // Over https only the prefixed cookie counts: a plain one may have been planted.
    expect(sessionTokenOf("floorline_session=planted", true)).toBeNull();
    expect(sessionTokenOf("floorline_session=planted; __Host-floorline_session=tok", true)).toBe("tok");
    const proto = new Headers({ "x-forwarded-proto": "https" });
    expect(isHttps("http://x/", proto, true)).toBe(true);
    expect(isHttps("http://x/", proto, false)).toBe(false);
    expect(isHttps("http://x/", new Headers(), true)).toBe(false);
  });
});

describe("who may read cached originals, and what is derived from them", () => {
  it("is who may read one: read keys and tokens, every operator, the open mode; never ingest or admin alone", () => {
    const key = (scopes: ("ingest" | "read" | "admin")[]) => ({ kind: "key" as const, id: "k", name: "k", scopes });
    expect(mayReadOriginals({ kind: "anonymous" })).toBe(true);
    expect(mayReadOriginals(key(["ingest", "read"]))).toBe(true);
    expect(mayReadOriginals(key(["ingest"]))).toBe(false);
    expect(mayReadOriginals(key(["ingest", "admin"]))).toBe(false);
    expect(mayReadOriginals({ kind: "token", name: "FLOORLINE_API_TOKEN", scopes: ["ingest", "read", "admin"] })).toBe(
      true,
    );
    for (const role of ["viewer", "admin"] as const)
      expect(
        mayReadOriginals({ kind: "operator", id: 1, name: "o", role, sessionId: "s", scopes: scopesOfRole(role) }),
      ).toBe(true);
  });
});

describe("the sign-in redirect target", () => {
  // What a browser does with an href before resolving it: tab, newline and CR vanish
  // anywhere, a backslash is a slash. Each of these would land on evil.example.
  const offsite = [
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    "\t//evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "/\\\\evil.example",
    "/%09/evil.example",
    "/%2F/evil.example",
    "/%5Cevil.example",
    "/%252F%252Fevil.example",
    "/%0a/evil.example",
    "//evil.example/%2e%2e",
    "javascript:alert(1)",
    " /x",
  ];
  it.each(offsite)("%j is refused", (next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  it("keeps a path of this site, with its query and fragment", () => {
    expect(safeNextPath("/chains/a%20b?range=1h#pass-2")).toBe("/chains/a%20b?range=1h#pass-2");
    expect(safeNextPath("/policies")).toBe("/policies");
    expect(safeNextPath("/")).toBe("/");
  });
});
