// The I/O around the one access decision (lib/auth/decision.ts `decideAccess`), for every API
// route (through `api-route.ts`), every page (through `page-access.ts`, and before it streams
// through `page-gate.ts`) and every server action (`server-action.ts`): the Host allow-list,
// the same-origin rule for cookie writes, the settings and the database's one fact the
// decision reads, and who the request's credential belongs to. Each surface then says the
// decision's refusal its own way.
import "server-only";
import { forbidden } from "next/navigation";
import { authenticateApiKey, credentialsExist } from "@/db/queries/access";
import { authenticateSession, bearerWaitSeconds, recordBearerFailure } from "@/db/queries/sessions";
import {
  allowedHostsOf,
  bearerTokenOf,
  crossSiteRefusal,
  FIRST_CREDENTIALS,
  hostAllowed,
  sessionIdleMs,
  sessionMaxMs,
  sessionTokenOf,
} from "@/lib/auth/access";
import { isLoopbackAddress } from "@/lib/auth/client-address";
import { constantTimeEqual, KEY_SCOPES } from "@/lib/auth/credentials";
import {
  type AccessDecision,
  type AccessFacts,
  accessOn,
  accessSettings,
  type Credential,
  decideAccess,
  dependsOnCredentialCount,
  NO_CREDENTIAL,
  type Principal,
  type Refusal,
  type RequestFacts,
  requiresCredential,
} from "@/lib/auth/decision";
import { isLocalToken, LOCAL_TOKEN_NAME } from "@/lib/auth/local-token";
import { env, envRecord } from "@/lib/env";
import { ApiError } from "@/lib/errors";
import type { Scope } from "@/lib/http/registry";
import { requestFacts } from "./request-facts";

/** What the decision for `need` reads besides the credential; whether any credential exists only when it can matter. */
async function accessFacts(request: RequestFacts, need: Scope): Promise<AccessFacts> {
  const settings = accessSettings(envRecord());
  // The answer is cached, but the first one reads the database.
  const exist = dependsOnCredentialCount(settings, need) ? await credentialsExist() : false;
  return { ...settings, credentialsExist: exist, request };
}

/** Whether this request must carry a credential for any scope but `public` (lib/auth/decision.ts `accessOn`). */
export async function authIsOn(request: RequestFacts): Promise<boolean> {
  return accessOn(await accessFacts(request, "read"));
}

/**
 * The one decision for a request: its facts first, then its credential, read by `identify`
 * more quietly where none is needed (`quiet`: a request that sends none is not looked at).
 */
async function decide(
  request: RequestFacts,
  need: Scope,
  identify: (quiet: boolean) => Promise<Credential>,
): Promise<AccessDecision> {
  const facts = await accessFacts(request, need);
  return decideAccess(facts, await identify(!requiresCredential(facts, need)), need);
}

/** The decision for a page or a server action: their credential is the session cookie alone. */
export async function decideBySession(headers: Headers, request: RequestFacts, need: Scope): Promise<AccessDecision> {
  return decide(request, need, async () => {
    const operator = await sessionOperator(headers, request);
    return operator ? { kind: "principal", principal: operator } : NO_CREDENTIAL;
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

/** The API's words for a refusal: 401, 403 or 429 in the contract's shape. */
async function apiRefusal(refusal: Refusal): Promise<ApiError> {
  switch (refusal.refuse) {
    case "unauthenticated":
      return unauthenticated();
    case "insufficient_scope":
      return new ApiError(
        "insufficient_scope",
        `This request needs the '${refusal.scope}' scope, which this credential does not have.`,
      );
    case "too_many_requests":
      return new ApiError("too_many_requests", "Too many requests with a wrong API key from this address; wait.", {
        headers: { "Retry-After": String(refusal.retryAfterSeconds) },
      });
  }
}

/** The operator behind the request's session cookie, if it is live. */
export async function sessionOperator(headers: Headers, facts: RequestFacts): Promise<Principal | null> {
  const token = sessionTokenOf(headers.get("cookie"), facts.https);
  if (!token) return null;
  const source = envRecord();
  return authenticateSession(token, { idleMs: sessionIdleMs(source), maxMs: sessionMaxMs(source) });
}

/**
 * A wrong bearer credential, counted against its address: nobody until the address has sent
 * too many lately, then throttled (429 with Retry-After where a credential is needed). Only
 * wrong ones wait: keys are random, so the count cannot help a guesser, and a valid key from
 * the same address (the agent next to a misconfigured one, everyone behind a proxy) keeps
 * working.
 */
async function badBearer(facts: RequestFacts): Promise<Credential> {
  const wait = await bearerWaitSeconds(facts.client);
  if (wait > 0) return { kind: "throttled", retryAfterSeconds: wait };
  await recordBearerFailure(facts.client);
  return NO_CREDENTIAL;
}

/** The principal behind a bearer key (or the legacy token); a wrong one is counted as above. */
async function bearerCredential(bearer: string, facts: RequestFacts): Promise<Credential> {
  const legacy = env("FLOORLINE_API_TOKEN");
  if (legacy && constantTimeEqual(bearer, legacy)) {
    return { kind: "principal", principal: { kind: "token", name: "FLOORLINE_API_TOKEN", scopes: KEY_SCOPES } };
  }
  // The CLI's token (lib/auth/local-token.ts) counts only on a socket from this machine that
  // no proxy forwarded: it is meant for the CLI beside the server, never for the network.
  if (facts.socket && isLoopbackAddress(facts.socket.peer) && !facts.forwarded && isLocalToken(bearer)) {
    return { kind: "principal", principal: { kind: "token", name: LOCAL_TOKEN_NAME, scopes: KEY_SCOPES } };
  }
  const key = await authenticateApiKey(bearer);
  return key ? { kind: "principal", principal: key } : badBearer(facts);
}

/**
 * The API's credential: a bearer key (or the legacy token), else a session cookie. Where none
 * is needed (`quiet`), a request that sends neither is nobody without a look.
 */
async function apiCredential(headers: Headers, facts: RequestFacts, quiet: boolean): Promise<Credential> {
  const authorization = headers.get("authorization");
  if (quiet && !authorization && !sessionTokenOf(headers.get("cookie"), facts.https)) return NO_CREDENTIAL;
  if (authorization !== null) {
    const bearer = bearerTokenOf(authorization);
    return bearer ? bearerCredential(bearer, facts) : badBearer(facts);
  }
  const operator = await sessionOperator(headers, facts);
  return operator ? { kind: "principal", principal: operator } : NO_CREDENTIAL;
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
  const decision = await decide(facts, scope, (quiet) => apiCredential(headers, facts, quiet));
  if ("admit" in decision) return decision.admit;
  throw await apiRefusal(decision);
}
