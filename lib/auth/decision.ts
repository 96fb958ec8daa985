// The one access decision: may this principal, from this request, do what this scope allows,
// and is access control on at all? Every surface asks `decideAccess`: the API route wrapper
// (app/_access/gate.ts `authorizeRequest`), pages (`requirePage`), the page gate that
// scripts/start.ts asks before a page streams (`decidePage`) and server actions
// (`serverAction`). What differs between them stays outside, with the I/O: which credential
// each reads (the API a bearer key or a session cookie, pages and actions the session only)
// and how each says no (401/403/429; a redirect to sign in or a 403 page; Next.js's
// unauthorized()/forbidden()). No I/O here: app/_access reads the settings, the database and
// the request, and feeds them in.
import { env } from "../env";
import type { Scope } from "../http/registry";
import { isLoopbackAddress, type SocketFacts } from "./client-address";
import type { KeyScope, Role } from "./credentials";

/** Environment variables as read here (process.env in the app, a plain object in tests). */
type Env = Readonly<Record<string, string | undefined>>;

/** Who is asking: nobody (auth off or public route), a key, the legacy token, or an operator. */
export type Principal =
  | { kind: "anonymous" }
  | { kind: "key"; id: string; name: string; scopes: readonly KeyScope[] }
  | { kind: "token"; name: string; scopes: readonly KeyScope[] }
  | { kind: "operator"; id: number; name: string; role: Role; sessionId: string; scopes: readonly KeyScope[] };

const ANONYMOUS: Principal = { kind: "anonymous" };

/** What an operator's role lets the dashboard do, in key scopes: viewers read, admins also administer. */
export function scopesOfRole(role: Role): KeyScope[] {
  return role === "admin" ? ["read", "admin"] : ["read"];
}

export function hasScope(principal: Principal, scope: KeyScope): boolean {
  return principal.kind === "anonymous" || principal.scopes.includes(scope);
}

/** Whether a principal may call a route of this (non-public) scope: `ingest or read` takes either key scope. */
export function admits(principal: Principal, scope: KeyScope | "ingest or read"): boolean {
  return scope === "ingest or read"
    ? hasScope(principal, "ingest") || hasScope(principal, "read")
    : hasScope(principal, scope);
}

/** What is known of where a request came from (app/_access/request-facts.ts reads it). */
export interface RequestFacts {
  /** The socket as the HTTP server saw it; null when the request did not come through it. */
  socket: SocketFacts | null;
  /** The client's address: the socket peer, or what a trusted proxy says; "unknown" without a socket. */
  client: string;
  /** Whether the socket peer is a proxy named in FLOORLINE_TRUSTED_PROXIES. */
  viaTrustedProxy: boolean;
  /** Whether X-Forwarded-For, Forwarded or X-Real-IP is present. */
  forwarded: boolean;
  /** Whether the client reached us over https (said by a trusted proxy). */
  https: boolean;
}

export type AuthMode = "on" | "off" | "auto";

export function authMode(source: Env): AuthMode {
  return env("FLOORLINE_AUTH", source) ?? "auto";
}

/** The settings the decision reads: `FLOORLINE_AUTH`, and whether the token and trusted proxies are set. */
interface AccessSettings {
  mode: AuthMode;
  legacyToken: boolean;
  trustedProxiesSet: boolean;
}

export function accessSettings(source: Env): AccessSettings {
  return {
    mode: authMode(source),
    legacyToken: env("FLOORLINE_API_TOKEN", source) !== undefined,
    trustedProxiesSet: env("FLOORLINE_TRUSTED_PROXIES", source) !== undefined,
  };
}

/** Everything the decision needs besides the credential: the settings, the database's one fact, the request. */
export interface AccessFacts extends AccessSettings {
  /** Whether any API key or operator exists (revoked and disabled ones included). */
  credentialsExist: boolean;
  request: RequestFacts;
}

/**
 * Whether a request provably comes from this machine: its socket peer is loopback, the server
 * listens on loopback only, and no proxy was involved. A proxy on the same machine connects
 * from loopback too, which is why any forwarding header, or a trusted proxy configured at
 * all, rules it out.
 */
export function isLocalRequest(facts: RequestFacts, trustedProxiesSet: boolean): boolean {
  if (!facts.socket || trustedProxiesSet || facts.forwarded || facts.viaTrustedProxy) return false;
  return isLoopbackAddress(facts.socket.listen) && isLoopbackAddress(facts.socket.peer);
}

/** This machine is trusted only where nothing forces access control either way. */
function trustsThisMachine(settings: AccessSettings, request: RequestFacts): boolean {
  return settings.mode === "auto" && isLocalRequest(request, settings.trustedProxiesSet);
}

/**
 * Whether access control is on for this request: forced by `FLOORLINE_AUTH`, else on unless
 * it is the open mode of a fresh install (no key, operator or token, and a request from this
 * machine).
 */
export function accessOn(facts: AccessFacts): boolean {
  if (facts.mode === "off") return false;
  return !(trustsThisMachine(facts, facts.request) && !facts.credentialsExist && !facts.legacyToken);
}

/** Whether a request for `need` must carry a credential. */
export function requiresCredential(facts: AccessFacts, need: Scope): boolean {
  return need !== "public" && accessOn(facts);
}

/**
 * Whether the decision for `need` turns on `credentialsExist`, the one fact that costs a
 * database read: the caller reads it only then, so a public route answers with the database
 * down and a forced mode never asks.
 */
export function dependsOnCredentialCount(settings: AccessSettings, need: Scope): boolean {
  return need !== "public" && settings.mode === "auto" && !settings.legacyToken;
}

/**
 * What the request's credential turned out to be: none (or one naming nobody: wrong, revoked,
 * expired), a principal, or a wrong bearer key from an address that has sent too many lately.
 */
export type Credential =
  | { kind: "none" }
  | { kind: "principal"; principal: Principal }
  | { kind: "throttled"; retryAfterSeconds: number };

export const NO_CREDENTIAL: Credential = { kind: "none" };

export type AccessDecision =
  | { admit: Principal }
  | { refuse: "unauthenticated" }
  | { refuse: "insufficient_scope"; scope: Exclude<Scope, "public"> }
  | { refuse: "too_many_requests"; retryAfterSeconds: number };

export type Refusal = Exclude<AccessDecision, { admit: Principal }>;

/**
 * The one decision. Where no credential is needed (a public scope, or access control off for
 * this request) everyone is admitted, as whoever their credential names, else as nobody; a
 * throttled or wrong credential is then simply nobody. Otherwise a credential naming someone
 * whose scopes cover `need`.
 */
export function decideAccess(facts: AccessFacts, credential: Credential, need: Scope): AccessDecision {
  const principal = credential.kind === "principal" ? credential.principal : null;
  if (need === "public" || !accessOn(facts)) return { admit: principal ?? ANONYMOUS };
  if (credential.kind === "throttled") {
    return { refuse: "too_many_requests", retryAfterSeconds: credential.retryAfterSeconds };
  }
  if (!principal) return { refuse: "unauthenticated" };
  if (!admits(principal, need)) return { refuse: "insufficient_scope", scope: need };
  return { admit: principal };
}

/**
 * Who this request may create the first admin operator as, while no operator exists: as this
 * machine (where the open mode would trust it), or only by giving FLOORLINE_API_TOKEN; null
 * when it may not at all. `FLOORLINE_AUTH=on` says loopback is not enough; with access
 * control forced off there is nothing to sign in to.
 */
export type FirstAdminOffer = "this-machine" | "token";

export function firstAdminOffer(
  input: AccessSettings & { operatorsExist: boolean; request: RequestFacts },
): FirstAdminOffer | null {
  if (input.operatorsExist || input.mode === "off") return null;
  if (trustsThisMachine(input, input.request)) return "this-machine";
  return input.legacyToken ? "token" : null;
}
