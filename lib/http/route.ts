import type { Principal } from "../auth/access";
import { ApiError, toErrorResponse } from "../errors";
import { observeRequest } from "../observability/metrics";
import { isStorableText } from "../schemas/common";
import { releaseBodyBytes } from "./body";
import { headroom, headroomMethodNotAllowed } from "../originals/headroom/http";
import { METHODS, type Method, methodsOfRoute, type ParamsOf, type RouteContract } from "./contract";
import { methodsOf, ROUTES, type RoutePattern, type Scope, scopeOf } from "./registry";

type Context = { params: Promise<Record<string, string | string[]>> };
/** A handler gets the principal the access check admitted (anonymous when auth is off). */
export type Handler<C extends Context> = (request: Request, context: C, principal: Principal) => Promise<Response>;
type NextHandler<C extends Context> = (request: Request, context: C) => Promise<Response>;

/** Decides who may call a route: throws an ApiError (401/403) or returns the principal. */
type Authorize = (request: Request, pattern: RoutePattern, scope: Scope) => Promise<Principal>;

// Nothing stored can be named with a NUL or an unpaired surrogate (the schemas refuse both),
// and Postgres cannot even compare such text: answer 404 before any query sees it.
async function refuseUnnameable(params: Context["params"] | undefined): Promise<void> {
  if (!params) return;
  const values = Object.values(await params).flat();
  if (!values.every(isStorableText)) {
    throw new ApiError("not_found", "No resource has that name: it contains a NUL character or an unpaired surrogate.");
  }
}

const WRITES_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

// The content types any web page may send cross-origin without a CORS preflight (and none at
// all): a write carrying one is refused before any handler, whatever it reads. Others (JSON,
// OTLP's protobuf) need a preflight this server never grants; each handler checks its own.
const NO_PREFLIGHT_TYPES = new Set(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]);

function sendableWithoutPreflight(header: string | null): boolean {
  if (!header) return true;
  return NO_PREFLIGHT_TYPES.has((header.split(";")[0] ?? "").trim().toLowerCase());
}

/**
 * The pure half of the route wrapper: the scope the method needs (from the route registry),
 * the access check it is given, the JSON content type of a write, then the handler, with
 * any failure answered per the contract. `serveRoute` below wraps each declared method with
 * it; `app/_access/api-route.ts` `serve` gives it the access check that reads the database.
 */
export function wrapRoute<C extends Context>(
  pattern: RoutePattern,
  handler: Handler<C>,
  authorize: Authorize,
): NextHandler<C> {
  return async (request, context) => {
    const started = performance.now();
    let response: Response;
    try {
      const scope = scopeOf(pattern, request.method);
      if (!scope) throw new ApiError("method_not_allowed", `This endpoint accepts ${methodsOf(pattern).join(", ")}.`);
      const principal = await authorize(request, pattern, scope);
      if (WRITES_WITH_BODY.has(request.method) && sendableWithoutPreflight(request.headers.get("content-type"))) {
        throw new ApiError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
      }
      await refuseUnnameable(context?.params);
      response = await handler(request, context, principal);
    } catch (error) {
      response = toErrorResponse(error);
    } finally {
      releaseBodyBytes(request);
    }
    // Labelled with the pattern, never the path: one series per route however many chains exist.
    // Streamed bodies are timed to their first byte.
    observeRequest(pattern, request.method, response.status, (performance.now() - started) / 1000);
    return response;
  };
}

/**
 * The headers of an answer with a result per item of a batch (ingest, evaluate): up to a few
 * MB, much of it SHA-256 hex that does not compress. Gzip at Next's level costs the server
 * more than it saves an agent next to it (a noticeable share of a large ingest's CPU), so it
 * goes uncompressed; nor is it worth caching.
 */
export const BATCH_ANSWER_HEADERS: Readonly<Record<string, string>> = { "cache-control": "no-store, no-transform" };

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return Response.json(body, { status, headers });
}

/** The 405 answer for the methods a route does not take, naming the ones it does. */
function notAllowedIn(allowed: string): NextHandler<Context> {
  return async () =>
    new ApiError("method_not_allowed", `This endpoint accepts ${allowed}.`, {
      headers: { Allow: allowed },
    }).toResponse();
}

function inHeadroomDialect<C extends Context>(handler: Handler<C>): Handler<C> {
  return (request, context, principal) => headroom((r, c: C) => handler(r, c, principal))(request, context);
}

/** What Next.js passes a handler of this route as its second argument. */
type RouteContext<R extends RouteContract> = { params: Promise<ParamsOf<R["path"]>> };

/** A handler for each method the route declares, and for no other. */
export type RouteHandlers<R extends RouteContract> = {
  [M in keyof R["methods"] & Method]: Handler<RouteContext<R>>;
};

/** What a route file exports: all five methods, those the route does not take answering 405. */
type RouteExports<R extends RouteContract> = Record<Method, NextHandler<RouteContext<R>>>;

/**
 * A route file's exports from its declaration and its handlers: each declared method through
 * the wrapper (scope, access check, content type, metrics), every other method the 405 naming
 * the declared ones. A Headroom-compatible route (`errorBody: "detail"`) answers its client
 * errors, that 405 included, as Headroom does.
 */
export function serveRoute<R extends RouteContract>(
  route: R,
  handlers: RouteHandlers<R>,
  authorize: Authorize,
): RouteExports<R> {
  const declared = methodsOfRoute(route);
  const given = handlers as Partial<Record<string, Handler<RouteContext<R>>>>;
  const stray = Object.keys(given).filter((m) => !declared.includes(m as Method));
  const missing = declared.filter((m) => !given[m]);
  if (stray.length > 0 || missing.length > 0) {
    throw new Error(
      `${route.path} declares ${declared.join(", ")}; its file handles ${Object.keys(given).join(", ")}.`,
    );
  }
  if (!(route.path in ROUTES)) throw new Error(`${route.path} is declared outside the registry's tables.`);
  const pattern = route.path as RoutePattern;
  const detail = declared.every((m) => route.methods[m]?.errorBody === "detail");
  const allowed = declared.join(", ");
  const notAllowed = detail ? headroomMethodNotAllowed(allowed) : notAllowedIn(allowed);
  const exports = {} as RouteExports<R>;
  for (const method of METHODS) {
    const handler = given[method];
    if (!handler) {
      exports[method] = notAllowed;
      continue;
    }
    exports[method] = wrapRoute(pattern, detail ? inHeadroomDialect(handler) : handler, authorize);
  }
  return exports;
}
