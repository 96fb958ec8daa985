// Where a request comes from and what that decides, pure: the socket stamp, trusted proxies
// and X-Forwarded-For, the open mode of a fresh install, the FLOORLINE_AUTH=off refusal,
// and the hash gate's lanes.
import { describe, expect, it } from "vitest";
import { authOffRefusal } from "@/lib/auth/access";
import {
  clientAddressOf,
  formatSocketStamp,
  isLoopbackAddress,
  NO_PROXIES,
  normalizeAddress,
  parseSocketStamp,
  trustedProxyList,
} from "@/lib/auth/client-address";
import { type AccessFacts, accessOn, isLocalRequest, type RequestFacts } from "@/lib/auth/decision";
import { HashGate, HashGateBusy } from "@/lib/auth/hash-gate";
import { pageParams } from "@/lib/auth/page-gate";
import { env, envInvalid } from "@/lib/env";

describe("the socket stamp", () => {
  it("carries the peer and listen address with the process secret, and nothing forged", () => {
    const stamp = formatSocketStamp("s3cret", { peer: "::ffff:10.0.0.7", listen: "127.0.0.1" });
    expect(parseSocketStamp(stamp, "s3cret")).toEqual({ peer: "10.0.0.7", listen: "127.0.0.1", forwarded: false });
    const proxied = formatSocketStamp("s3cret", { peer: "127.0.0.1", listen: "127.0.0.1", forwarded: true });
    expect(parseSocketStamp(proxied, "s3cret")?.forwarded).toBe(true);
    expect(parseSocketStamp(stamp, "s3creT")).toBeNull();
    expect(parseSocketStamp("s3cret 127.0.0.1", "s3cret")).toBeNull();
    expect(parseSocketStamp("s3cret 127.0.0.1 127.0.0.1 x", "s3cret")).toBeNull();
    expect(parseSocketStamp("s3cret 127.0.0.1 127.0.0.1 direct x", "s3cret")).toBeNull();
    expect(parseSocketStamp(null, "s3cret")).toBeNull();
  });

  it("unwraps IPv4-mapped addresses and knows loopback", () => {
    expect(normalizeAddress("::FFFF:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("[::1]")).toBe("::1");
    expect(isLoopbackAddress("::ffff:127.0.0.2")).toBe(true);
    expect(isLoopbackAddress("::1")).toBe(true);
    expect(isLoopbackAddress("0.0.0.0")).toBe(false);
    expect(isLoopbackAddress("10.0.0.1")).toBe(false);
  });
});

describe("the client address", () => {
  const trusted = trustedProxyList(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])!;
  const xff = (value: string) => new Headers({ "x-forwarded-for": value });

  it("is the socket peer when the peer is not a trusted proxy, whatever X-Forwarded-For says", () => {
    expect(clientAddressOf("203.0.113.9", xff("127.0.0.1"), trusted)).toBe("203.0.113.9");
    expect(clientAddressOf("127.0.0.1", xff("198.51.100.1"), NO_PROXIES)).toBe("127.0.0.1");
  });

  it("is read from the right of X-Forwarded-For past trusted hops only", () => {
    expect(clientAddressOf("127.0.0.1", xff("198.51.100.1"), trusted)).toBe("198.51.100.1");
    // A client that sends its own X-Forwarded-For cannot choose the address: the proxy appends.
    expect(clientAddressOf("127.0.0.1", xff("1.2.3.4, 198.51.100.1"), trusted)).toBe("198.51.100.1");
    expect(clientAddressOf("127.0.0.1", xff("198.51.100.1, 10.1.2.3"), trusted)).toBe("198.51.100.1");
    expect(clientAddressOf("127.0.0.1", xff("garbage, 10.1.2.3"), trusted)).toBe("10.1.2.3");
    expect(clientAddressOf("127.0.0.1", new Headers(), trusted)).toBe("127.0.0.1");
  });

  it("FLOORLINE_TRUSTED_PROXIES parses addresses and blocks, and refuses anything else whole", () => {
    expect(env("FLOORLINE_TRUSTED_PROXIES", { FLOORLINE_TRUSTED_PROXIES: " 127.0.0.1 , ::1,10.0.0.0/8" })).toBeTruthy();
    for (const bad of ["127.0.0.1,nginx", "10.0.0.0/33", "*", "0.0.0.0/0/1", "localhost"]) {
      expect(envInvalid("FLOORLINE_TRUSTED_PROXIES", { FLOORLINE_TRUSTED_PROXIES: bad }), bad).toBe(true);
    }
  });
});

describe("the open mode of a fresh install", () => {
  const local: RequestFacts = {
    socket: { peer: "127.0.0.1", listen: "127.0.0.1" },
    client: "127.0.0.1",
    viaTrustedProxy: false,
    forwarded: false,
    https: false,
  };
  const required = (request: RequestFacts, more: Partial<AccessFacts> = {}) =>
    accessOn({
      mode: "auto",
      credentialsExist: false,
      legacyToken: false,
      trustedProxiesSet: false,
      request,
      ...more,
    });

  it("applies only to a loopback peer on a loopback listener, with no proxy involved", () => {
    expect(isLocalRequest(local, false)).toBe(true);
    expect(required(local)).toBe(false);
    expect(required({ ...local, socket: { peer: "::1", listen: "::1" } })).toBe(false);
    expect(required({ ...local, socket: null })).toBe(true);
    expect(required({ ...local, socket: { peer: "127.0.0.1", listen: "0.0.0.0" } })).toBe(true);
    expect(required({ ...local, socket: { peer: "192.168.1.5", listen: "127.0.0.1" } })).toBe(true);
    expect(required({ ...local, forwarded: true })).toBe(true);
    expect(required({ ...local, viaTrustedProxy: true })).toBe(true);
    expect(required(local, { trustedProxiesSet: true })).toBe(true);
    expect(required(local, { credentialsExist: true })).toBe(true);
    expect(required(local, { legacyToken: true })).toBe(true);
    expect(required(local, { mode: "on" })).toBe(true);
    expect(required({ ...local, socket: null }, { mode: "off" })).toBe(false);
  });

  it("FLOORLINE_AUTH=off refuses a non-loopback address unless FLOORLINE_AUTH_OFF_I_UNDERSTAND=1", () => {
    expect(authOffRefusal({ FLOORLINE_AUTH: "off" }, "0.0.0.0")).toContain("FLOORLINE_AUTH_OFF_I_UNDERSTAND");
    expect(authOffRefusal({ FLOORLINE_AUTH: "off" }, "10.0.0.5")).not.toBeNull();
    expect(authOffRefusal({ FLOORLINE_AUTH: "off", FLOORLINE_AUTH_OFF_I_UNDERSTAND: "1" }, "0.0.0.0")).toBeNull();
    expect(authOffRefusal({ FLOORLINE_AUTH: "off" }, "127.0.0.1")).toBeNull();
    expect(authOffRefusal({ FLOORLINE_AUTH: "off" }, "localhost")).toBeNull();
    expect(authOffRefusal({}, "0.0.0.0")).toBeNull();
  });
});

describe("the hash gate", () => {
  it("runs one at a time: names that signed in lately first, then the normal lane, then the slow one", async () => {
    const gate = new HashGate(1, 2);
    const order: string[] = [];
    let release!: () => void;
    const running = gate.run("normal", () => new Promise<void>((r) => (release = r)).then(() => order.push("running")));
    const slow = gate.run("slow", async () => order.push("slow"));
    const slow2 = gate.run("slow", async () => order.push("slow 2"));
    const normal = gate.run("normal", async () => order.push("normal"));
    const known = gate.run("first", async () => order.push("known"));
    expect(gate.queued()).toEqual({ first: 1, normal: 1, slow: 2 });
    release();
    await Promise.all([running, slow, slow2, normal, known]);
    expect(order).toEqual(["running", "known", "normal", "slow", "slow 2"]);
    expect(gate.queued()).toEqual({ first: 0, normal: 0, slow: 0 });
    expect(gate.completed).toBe(5);
  });

  it("throws HashGateBusy when the lane's line is full", async () => {
    const gate = new HashGate(1, 1);
    let release!: () => void;
    const held = gate.run("normal", () => new Promise<void>((r) => (release = r)));
    const waiting = gate.run("slow", async () => 1);
    await expect(gate.run("slow", async () => 2)).rejects.toBeInstanceOf(HashGateBusy);
    release();
    await held;
    expect(await waiting).toBe(1);
  });
});

describe("the page gate's params", () => {
  it("takes each {name} segment decoded once, as Next.js hands it to the page", () => {
    expect(pageParams("/chains/{chain_id}", "/chains/a%20b")).toEqual({ chain_id: "a b" });
    expect(pageParams("/chains/{chain_id}", "/chains/x%2541")).toEqual({ chain_id: "x%41" });
    expect(pageParams("/chains/{chain_id}/action-space", "/chains/c1/action-space/")).toEqual({ chain_id: "c1" });
    expect(pageParams("/traces", "/traces")).toEqual({});
  });

  it("is null for a path of another shape or a segment that does not decode", () => {
    expect(pageParams("/chains/{chain_id}", "/chains/a/b")).toBeNull();
    expect(pageParams("/chains/{chain_id}", "/chains/%FF")).toBeNull();
  });
});
