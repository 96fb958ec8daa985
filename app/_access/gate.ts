// The one access check behind every API route (through `api-route.ts`) and every page
// (through `page-access.ts`): the Host allow-list, the same-origin rule for cookie writes,
// whether auth is on, and who the credential belongs to. Decisions are the pure functions
// of lib/auth; this module only feeds them the request and the database.
import "server-only";
import { authenticateApiKey, authenticateSession, credentialsExist } from "@/db/queries/access";
import {
  admits,
  allowedHostsOf,
  authMode,
  bearerTokenOf,
  hostAllowed,
  isLoopbackHost,
  isSafeMethod,
  isSameOrigin,
  listenHostOf,
  type Principal,
  sessionIdleMs,
  sessionTokenOf,
} from "@/lib/auth/access";
import { constantTimeEqual, KEY_SCOPES } from "@/lib/auth/credentials";
import { forbidden } from "next/navigation";
import { ApiError } from "@/lib/errors";
import type { Scope } from "@/lib/http/registry";
import { envRecord } from "@/lib/env";

export const ANONYMOUS: Principal = { kind: "anonymous" };

/** Auth is on per the contract: forced either way by FLOORLINE_AUTH, else any credential or a non-loopback listener. */
export async function authIsOn(env: Partial<Record<string, string>> = envRecord()): Promise<boolean> {
  const mode = authMode(env);
  if (mode !== "auto") return mode === "on";
  if (env.FLOORLINE_API_TOKEN) return true;
  if (!isLoopbackHost(listenHostOf(env))) return true;
  return credentialsExist();
}

/** The Host header (or the URL's host, for requests built without one) if it is allowed. */
export function checkHost(headers: Headers, url: string): void {
  const host = headers.get("host") ?? new URL(url).host;
  if (!hostAllowed(host, allowedHostsOf(envRecord()))) {
    throw new ApiError(
      "host_not_allowed",
      `This server does not answer to the host ${JSON.stringify(host)}; add it to FLOORLINE_ALLOWED_HOSTS if it is yours.`,
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

const unauthenticated = () =>
  new ApiError("unauthenticated", "Send a valid API key as 'Authorization: Bearer <key>', or sign in.", {
    headers: { "WWW-Authenticate": 'Bearer realm="floorline"' },
  });

/** The principal behind the request's credential: a bearer key (or the legacy token), else a session cookie. */
async function identify(headers: Headers): Promise<Principal | null> {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const bearer = bearerTokenOf(authorization);
    if (!bearer) return null;
    const legacy = envRecord().FLOORLINE_API_TOKEN;
    if (legacy && constantTimeEqual(bearer, legacy)) {
      return { kind: "token", name: "FLOORLINE_API_TOKEN", scopes: KEY_SCOPES };
    }
    return authenticateApiKey(bearer);
  }
  const session = sessionTokenOf(headers.get("cookie"));
  return session ? authenticateSession(session, sessionIdleMs(envRecord())) : null;
}

/** The access check of an API route; throws the contract's 401/403, returns who is calling. */
export async function authorizeRequest(request: Request, scope: Scope): Promise<Principal> {
  const { headers } = request;
  checkHost(headers, request.url);
  if (!isSafeMethod(request.method) && sessionTokenOf(headers.get("cookie"))) {
    const host = headers.get("host") ?? new URL(request.url).host;
    if (!isSameOrigin(headers, host, headers.get("x-forwarded-proto"))) {
      throw new ApiError("cross_site_request", "A signed-in write must come from this site's own pages.");
    }
  }
  if (scope === "public") return (await identifyQuietly(headers)) ?? ANONYMOUS;
  if (!(await authIsOn())) return (await identifyQuietly(headers)) ?? ANONYMOUS;
  const principal = await identify(headers);
  if (!principal) throw unauthenticated();
  if (!admits(principal, scope)) {
    throw new ApiError(
      "insufficient_scope",
      `This request needs the '${scope}' scope, which this credential does not have.`,
    );
  }
  return principal;
}

/** Who is calling where no credential is required: a bad credential is then simply nobody. */
async function identifyQuietly(headers: Headers): Promise<Principal | null> {
  if (!headers.get("authorization") && !sessionTokenOf(headers.get("cookie"))) return null;
  return identify(headers);
}
