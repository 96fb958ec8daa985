// Operators sign in and out here (the /sign-in page posts to it). The cookie holds a random
// token; the sessions table holds its hash. Guessing is slowed per name and address pair,
// with the address taken from the socket (or a trusted proxy): lib/auth/throttle.ts.
import { endSession, signIn } from "@/db/queries/sessions";
import { clearedSessionCookie, sessionCookie, sessionIdleMs, sessionMaxMs, sessionTokenOf } from "@/lib/auth/access";
import { ApiError } from "@/lib/errors";
import { readSecretJson } from "@/app/_access/secret-body";
import { parseBody } from "@/lib/http/batch";
import { json, serve } from "@/app/_access/api-route";
import { ACCESS_ROUTES } from "@/lib/routes/access";
import { signInSchema } from "@/lib/schemas/access";
import { authIsOn } from "@/app/_access/gate";
import { requestFacts } from "@/app/_access/request-facts";
import { envRecord } from "@/lib/env";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ACCESS_ROUTES.session, {
  GET: async (request, _context, principal) => {
    const auth = await authIsOn(requestFacts(request.headers, request.url));
    if (principal.kind !== "operator") return json({ auth, operator: null });
    return json({ auth, operator: { id: principal.id, name: principal.name, role: principal.role } });
  },
  POST: async (request) => {
    const { name, password } = parseBody(await readSecretJson(request, 16 * 1024), signInSchema);
    const facts = requestFacts(request.headers, request.url);
    const result = await signIn(name, password, facts.client);
    if (!result.ok) {
      if (result.reason === "throttled") {
        throw new ApiError("too_many_requests", "Too many sign-in attempts for this name from here; wait.", {
          headers: { "Retry-After": String(result.retryAfterSeconds) },
        });
      }
      if (result.reason === "busy") {
        throw new ApiError("server_busy", "Too many sign-ins are waiting; try again shortly.", {
          headers: { "Retry-After": String(result.retryAfterSeconds) },
        });
      }
      throw new ApiError("unauthenticated", "The name or the password is wrong.");
    }
    const source = envRecord();
    // The cookie lives as long as the session could: its idle time, capped by its lifetime.
    const maxAge = Math.round(Math.min(sessionIdleMs(source), sessionMaxMs(source)) / 1000);
    return json({ operator: { id: result.operator.id, name: result.operator.name, role: result.operator.role } }, 201, {
      "set-cookie": sessionCookie(result.token, facts.https, maxAge),
      "cache-control": "no-store",
    });
  },
  DELETE: async (request) => {
    const facts = requestFacts(request.headers, request.url);
    const token = sessionTokenOf(request.headers.get("cookie"), facts.https);
    if (token) await endSession(token);
    return new Response(null, { status: 204, headers: { "set-cookie": clearedSessionCookie(facts.https) } });
  },
});
