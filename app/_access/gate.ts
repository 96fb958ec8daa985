// The one access check behind every API route (through `api-route.ts`), every page (through
// `page-access.ts`, and before it streams through `page-gate.ts`) and every server action:
// the Host allow-list, the same-origin rule for cookie writes, whether this request needs a
// credential, and who the credential belongs to. Decisions are the pure functions of
// lib/auth; this module only feeds them the request and the database.
import "server-only";
import { forbidden } from "next/navigation";
import {
  authenticateApiKey,
  authenticateSession,
  bearerWaitSeconds,
  credentialsExist,
  recordBearerFailure,
} from "@/db/queries/access";
import {
  accessRequired,
  admits,
  allowedHostsOf,
  authMode,
  bearerTokenOf,
  FIRST_CREDENTIALS,
  hostAllowed,
  crossSiteRefusal,
  type Principal,
  type RequestFacts,
  sessionIdleMs,
  sessionMaxMs,
  sessionTokenOf,
} from "@/lib/auth/access";
import { isLoopbackAddress } from "@/lib/auth/client-address";
import { constantTimeEqual, KEY_SCOPES } from "@/lib/auth/credentials";
import { isLocalToken, LOCAL_TOKEN_NAME } from "@/lib/auth/local-token";
import { env, envRecord } from "@/lib/env";
import { ApiError } from "@/lib/errors";
import type { Scope } from "@/lib/http/registry";
import { requestFacts } from "./request-facts";

export const ANONYMOUS: Principal = { kind: "anonymous" };

/** Whether this request must carry a credential (lib/auth/access.ts `accessRequired`). */
export async function authIsOn(facts: RequestFacts): Promise<boolean> {
  const mode = authMode(envRecord());
  const legacyToken = env("FLOORLINE_API_TOKEN") !== undefined;
  return accessRequired({
    mode,
    // Asked only when it can matter: the answer is cached, but the first one reads the database.
    credentialsExist: mode === "auto" && !legacyToken ? await credentialsExist() : false,
    legacyToken,
    trustedProxiesSet: env("FLOORLINE_TRUSTED_PROXIES") !== undefined,
    facts,
  });
}

/** The Host header (or the URL's host, for requests built without one) if it is allowed. */
export function checkHost(headers: Headers, url: string): void {
  const host = headers.get("host") ?? new URL(url).host;
  if (!hostAllowed(host, allowedHostsOf(envRecord()))) {
    throw new ApiError(
      "host_not_allowed",
      `This server does not answer to the host ${JSON.stringify(host.slice(0, 200))}; add it to FLOORLINE_ALLOWED_HOSTS if it is yours.`,
    );
  }
}

/** The Host check of a page or a server action: a host we do not serve is a 403 page. */
export function checkPageHost(headers: Headers): void {
  try {
    checkHost(headers, "http://localhost/");
  } catch (error) {
    if (error instanceof ApiError) forbidden();
    throw error;
  }
}

/** The 401, saying how to make the first credential while none exists. */
async function unauthenticated(): Promise<ApiError> {
  const none = env("FLOORLINE_API_TOKEN") === undefined && !(await credentialsExist().catch(() => true));
  const message = none
    ? `No API key or operator exists yet, and only requests straight from this machine (no proxy) may go without. Create the first ones on the server:\n${FIRST_CREDENTIALS}`
    : "Send a valid API key as 'Authorization: Bearer <key>', or sign in.";
  return new ApiError("unauthenticated", message, { headers: { "WWW-Authenticate": 'Bearer realm="floorline"' } });
}

/** The operator behind the request's session cookie, if it is live. */
export async function sessionOperator(headers: Headers, facts: RequestFacts): Promise<Principal | null> {
  const token = sessionTokenOf(headers.get("cookie"), facts.https);
  if (!token) return null;
  const source = envRecord();
  return authenticateSession(token, { idleMs: sessionIdleMs(source), maxMs: sessionMaxMs(source) });
}

/**
 * A wrong bearer credential, counted against its address: 401 (null) until the address has
 * sent too many lately, then 429 with Retry-After. Only wrong ones wait: keys are random, so
 * the count cannot help a guesser, and a valid key from the same address (the agent next to
 * a misconfigured one, everyone behind a proxy) keeps working.
 */
async function refuseBadBearer(facts: RequestFacts): Promise<null> {
  const wait = await bearerWaitSeconds(facts.client);
  if (wait > 0) {
    throw new ApiError("too_many_requests", "Too many requests with a wrong API key from this address; wait.", {
      headers: { "Retry-After": String(wait) },
    });
  }
  await recordBearerFailure(facts.client);
  return null;
}

/** The principal behind a bearer key (or the legacy token); a wrong one is refused as above. */
async function bearerPrincipal(bearer: string, facts: RequestFacts): Promise<Principal | null> {
  const legacy = env("FLOORLINE_API_TOKEN");
  if (legacy && constantTimeEqual(bearer, legacy)) {
    return { kind: "token", name: "FLOORLINE_API_TOKEN", scopes: KEY_SCOPES };
  }
  // The CLI's token (lib/auth/local-token.ts) counts only on a socket from this machine that
  // no proxy forwarded: it is meant for the CLI beside the server, never for the network.
  if (facts.socket && isLoopbackAddress(facts.socket.peer) && !facts.forwarded && isLocalToken(bearer)) {
    return { kind: "token", name: LOCAL_TOKEN_NAME, scopes: KEY_SCOPES };
  }
  return (await authenticateApiKey(bearer)) ?? refuseBadBearer(facts);
}

/** The principal behind the request's credential: a bearer key (or the legacy token), else a session cookie. */
async function identify(headers: Headers, facts: RequestFacts): Promise<Principal | null> {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const bearer = bearerTokenOf(authorization);
    return bearer ? bearerPrincipal(bearer, facts) : refuseBadBearer(facts);
  }
  return sessionOperator(headers, facts);
}

/** The access check of an API route; throws the contract's 401/403/429, returns who is calling. */
export async function authorizeRequest(request: Request, scope: Scope): Promise<Principal> {
  const { headers } = request;
  checkHost(headers, request.url);
  const facts = requestFacts(headers, request.url);
  if (sessionTokenOf(headers.get("cookie"), facts.https)) {
    const host = headers.get("host") ?? new URL(request.url).host;
    const refusal = crossSiteRefusal(
      request.method,
      headers,
      host,
      facts.viaTrustedProxy ? headers.get("x-forwarded-proto") : null,
    );
    if (refusal) throw refusal;
  }
  if (scope === "public" || !(await authIsOn(facts))) return (await identifyQuietly(headers, facts)) ?? ANONYMOUS;
  const principal = await identify(headers, facts);
  if (!principal) throw await unauthenticated();
  if (!admits(principal, scope)) {
    throw new ApiError(
      "insufficient_scope",
      `This request needs the '${scope}' scope, which this credential does not have.`,
    );
  }
  return principal;
}

/** Who is calling where no credential is required: a bad credential is then simply nobody. */
async function identifyQuietly(headers: Headers, facts: RequestFacts): Promise<Principal | null> {
  if (!headers.get("authorization") && !sessionTokenOf(headers.get("cookie"), facts.https)) return null;
  try {
    return await identify(headers, facts);
  } catch (error) {
    if (error instanceof ApiError && error.code === "too_many_requests") return null;
    throw error;
  }
}
