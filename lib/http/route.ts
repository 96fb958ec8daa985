import { timingSafeEqual } from "node:crypto";
import { ApiError, toErrorResponse } from "../errors";
import { releaseBodyBytes } from "./body";
import { methodsOf, type RoutePattern, scopeOf } from "./registry";

type Context = { params: Promise<Record<string, string | string[]>> };
type Handler<C extends Context> = (request: Request, context: C) => Promise<Response>;

function checkAuth(request: Request): void {
  const token = process.env.FLOORLINE_API_TOKEN;
  if (!token) return;
  const given = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new ApiError("unauthorized", "Send the API token as 'Authorization: Bearer <token>'.", {
      headers: { "WWW-Authenticate": 'Bearer realm="floorline"' },
    });
  }
}

// Nothing stored can be named with a NUL or an unpaired surrogate (the schemas refuse both),
// and Postgres cannot even compare such text: answer 404 before any query sees it.
async function refuseUnnameable(params: Context["params"] | undefined): Promise<void> {
  if (!params) return;
  const values = Object.values(await params).flat();
  if (values.some((v) => v.includes("\u0000") || !v.isWellFormed())) {
    throw new ApiError("not_found", "No resource has that name: it contains a NUL character or an unpaired surrogate.");
  }
}

/**
 * Every API handler goes through here: the scope its method needs (from the route registry),
 * then the handler, with any failure answered per the contract.
 */
export function route<C extends Context>(pattern: RoutePattern, handler: Handler<C>): Handler<C> {
  return async (request, context) => {
    try {
      if (scopeOf(pattern, request.method) !== "public") checkAuth(request);
      await refuseUnnameable(context?.params);
      return await handler(request, context);
    } catch (error) {
      return toErrorResponse(error);
    } finally {
      releaseBodyBytes(request);
    }
  };
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return Response.json(body, { status, headers });
}

/** The 405 answer for the methods a route does not take, naming the ones it does. */
export function methodNotAllowed(pattern: RoutePattern): Handler<Context> {
  const allowed = methodsOf(pattern).join(", ");
  return async () =>
    new ApiError("method_not_allowed", `This endpoint accepts ${allowed}.`, {
      headers: { Allow: allowed },
    }).toResponse();
}
