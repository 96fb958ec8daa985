// Operators sign in and out here (the /sign-in page posts to it). The cookie holds a random
// token; the sessions table holds its hash.
import { endSession, signIn } from "@/db/queries/access";
import { clearedSessionCookie, isHttps, sessionCookie, sessionIdleMs, sessionTokenOf } from "@/lib/auth/access";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { signInSchema } from "@/lib/schemas/access";
import { authIsOn } from "@/app/_access/gate";
import { envRecord } from "@/lib/env";

/** The nearest proxy's view of the client (the last X-Forwarded-For entry), for throttling. */
function clientAddress(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for");
  return forwarded?.split(",").at(-1)?.trim() || request.headers.get("x-real-ip") || "unknown";
}

export const GET = route("/api/v1/session", async (_request, _context, principal) => {
  const auth = await authIsOn();
  if (principal.kind !== "operator") return json({ auth, operator: null });
  return json({ auth, operator: { id: principal.id, name: principal.name, role: principal.role } });
});

export const POST = route("/api/v1/session", async (request) => {
  const { name, password } = parseBody(await readJson(request, 16 * 1024), signInSchema);
  const result = await signIn(name, password, clientAddress(request));
  if (!result.ok) {
    if (result.retryAfterSeconds > 0) {
      throw new ApiError("too_many_requests", "Too many failed sign-ins; wait before trying again.", {
        headers: { "Retry-After": String(result.retryAfterSeconds) },
      });
    }
    throw new ApiError("unauthenticated", "The name or the password is wrong.");
  }
  const secure = isHttps(request.url, request.headers);
  const maxAge = Math.round(sessionIdleMs(envRecord()) / 1000);
  return json({ operator: { id: result.operator.id, name: result.operator.name, role: result.operator.role } }, 201, {
    "set-cookie": sessionCookie(result.token, secure, maxAge),
    "cache-control": "no-store",
  });
});

export const DELETE = route("/api/v1/session", async (request) => {
  const token = sessionTokenOf(request.headers.get("cookie"));
  if (token) await endSession(token);
  return new Response(null, {
    status: 204,
    headers: { "set-cookie": clearedSessionCookie(isHttps(request.url, request.headers)) },
  });
});

const notAllowed = methodNotAllowed("/api/v1/session");
export { notAllowed as PUT, notAllowed as PATCH };
