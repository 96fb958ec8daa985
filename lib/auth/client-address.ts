// Who is really at the other end of a request. The HTTP server (scripts/start.ts) knows the
// socket: the peer's address and the address it listens on. It hands them to the app in one
// request header whose value carries a secret made fresh in each process, after removing any
// header of that name a client sent: a client can neither set nor guess it. Forwarding
// headers (X-Forwarded-For and friends) count only when the socket peer is a proxy named in
// FLOORLINE_TRUSTED_PROXIES; from anyone else they are a claim, not an address.
import { randomBytes } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { processSingleton } from "../process-singleton";

/** The request header scripts/start.ts sets from the socket. */
export const SOCKET_HEADER = "x-floorline-socket";

export interface SocketFacts {
  /** The socket peer's address, as the kernel says (IPv4-mapped IPv6 unwrapped). */
  peer: string;
  /** The address the server listens on. */
  listen: string;
  /**
   * Whether the request arrived with a forwarding header (hasForwardingHeaders). Decided by
   * the server before Next.js sees the request: Next.js adds X-Forwarded-For to every one.
   */
  forwarded?: boolean;
}

/** `::ffff:127.0.0.1` → `127.0.0.1`; brackets and zone ids dropped; lower case. */
export function normalizeAddress(address: string): string {
  let a = address.trim().toLowerCase();
  if (a.startsWith("[")) a = a.slice(1, a.indexOf("]") === -1 ? undefined : a.indexOf("]"));
  const zone = a.indexOf("%");
  if (zone !== -1) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  return mapped?.[1] ?? a;
}

/** The header's value: the process secret, the peer, the listen address, whether forwarded. */
export function formatSocketStamp(secret: string, facts: SocketFacts): string {
  const peer = normalizeAddress(facts.peer) || "-";
  return `${secret} ${peer} ${normalizeAddress(facts.listen) || "-"} ${facts.forwarded ? "forwarded" : "direct"}`;
}

/** The facts in a stamp, or null when it is absent or not made with this process's secret. */
export function parseSocketStamp(value: string | null, secret: string): SocketFacts | null {
  if (!value) return null;
  const [given, peer, listen, how, extra] = value.split(" ");
  if (extra !== undefined || !given || !peer || !listen || (how !== "forwarded" && how !== "direct")) return null;
  if (given.length !== secret.length) return null;
  // Constant time: the stamp is compared on every request.
  let diff = 0;
  for (let i = 0; i < secret.length; i++) diff |= given.charCodeAt(i) ^ secret.charCodeAt(i);
  return diff === 0 ? { peer, listen, forwarded: how === "forwarded" } : null;
}

export function isLoopbackAddress(address: string): boolean {
  const a = normalizeAddress(address);
  return a === "::1" || a === "0:0:0:0:0:0:0:1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/**
 * `FLOORLINE_TRUSTED_PROXIES`' entries (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`) as a
 * list to check addresses against; null when any entry is neither an address nor a block.
 */
export function trustedProxyList(entries: readonly string[]): BlockList | null {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", bits, extra] = entry.split("/");
    const normal = normalizeAddress(address);
    const family = isIP(normal);
    const prefix = bits === undefined ? undefined : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    const maxPrefix = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || (prefix !== undefined && !(prefix >= 0 && prefix <= maxPrefix))) {
      return null;
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(normal, type);
    else list.addSubnet(normal, prefix, type);
  }
  return list;
}

/** Trusts no one: the list when FLOORLINE_TRUSTED_PROXIES is unset. */
export const NO_PROXIES = new BlockList();

export function isTrusted(address: string, trusted: BlockList): boolean {
  const a = normalizeAddress(address);
  const family = isIP(a);
  if (family === 0) return false;
  return trusted.check(a, family === 6 ? "ipv6" : "ipv4");
}

/** Whether the request carries any header a proxy adds to say where it came from. */
export function hasForwardingHeaders(headers: { has(name: string): boolean }): boolean {
  return headers.has("x-forwarded-for") || headers.has("forwarded") || headers.has("x-real-ip");
}

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy, in which case
 * X-Forwarded-For is read from the right (each proxy appends the address it saw) past every
 * trusted hop to the first address no trusted proxy vouches for. Garbage in the header
 * stops the walk at the last address that was vouched for.
 */
export function clientAddressOf(peer: string, headers: Headers, trusted: BlockList): string {
  let client = normalizeAddress(peer);
  if (!isTrusted(client, trusted)) return client;
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i] ?? "");
    if (isIP(hop) === 0) break;
    client = hop;
    if (!isTrusted(hop, trusted)) break;
  }
  return client;
}

/** This process's stamp secret, shared by the HTTP server and every chunk of the app. */
export function socketSecret(): string {
  return processSingleton("socket-secret", () => randomBytes(24).toString("base64url"));
}

const stampless = () => processSingleton("stampless-requests", () => ({ facts: null as SocketFacts | null }));

/**
 * What a request without a stamp stands for when the app is called in-process (the
 * integration tests hand route handlers plain `Request` objects). Only code can set it, and
 * nothing in the server does: a request that did not come through scripts/start.ts is
 * otherwise from nobody known, and gets no open mode.
 */
export function setStamplessFacts(facts: SocketFacts | null): void {
  stampless().facts = facts;
}

export function stamplessFacts(): SocketFacts | null {
  return stampless().facts;
}
