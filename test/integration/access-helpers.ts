// Shared by the access suites: every route handler found from the registry, requests with a
// chosen credential, and keys/operators made through the query layer.
import { afterEach, beforeAll } from "vitest";
import { accessClock, forgetCredentialsCache } from "@/db/queries/access";
import { type Method, ROUTES, type RoutePattern } from "@/lib/http/registry";
import { formatSocketStamp, SOCKET_HEADER, socketSecret } from "@/lib/auth/client-address";

type RouteModule = Partial<Record<Method, (request: Request, context: unknown) => Promise<Response>>>;

const modules = import.meta.glob<RouteModule>("/app/**/route.ts");

/** `/api/v1/chains/{chain_id}` → its route module, found the way Next.js maps folders. */
export async function routeModule(pattern: RoutePattern): Promise<RouteModule> {
  const file = `/app${pattern.replace(/\{([a-z_]+)\}/g, "[$1]")}/route.ts`;
  const load = modules[file];
  if (!load) throw new Error(`no route file ${file} for ${pattern}`);
  return load();
}

/** Every (pattern, method, scope) of the registry: the auth matrix grows with it. */
export const ROUTE_METHODS = Object.entries(ROUTES).flatMap(([pattern, methods]) =>
  Object.entries(methods).map(([method, scope]) => ({
    pattern: pattern as RoutePattern,
    method: method as Method,
    scope,
  })),
);

/** A value for each dynamic segment that names nothing stored, so allowed calls answer 404 or 422, never stream. */
export function paramsFor(pattern: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [, name] of pattern.matchAll(/\{([a-z_]+)\}/g))
    values[name!] = name === "id" ? "0123456789abcdef" : "absent";
  return values;
}

export async function callRoute(
  pattern: RoutePattern,
  method: Method,
  init: { headers?: Record<string, string>; body?: unknown; query?: string } = {},
): Promise<Response> {
  const params = paramsFor(pattern);
  const path = pattern.replace(/\{([a-z_]+)\}/g, (_, n: string) => params[n]!);
  const withBody = method === "POST" || method === "PUT" || method === "PATCH";
  const request = new Request(`http://localhost${path}${init.query ?? ""}`, {
    method,
    headers: { ...(withBody ? { "content-type": "application/json" } : {}), ...init.headers },
    body: withBody ? JSON.stringify(init.body ?? {}) : undefined,
  });
  const handler = (await routeModule(pattern))[method];
  if (!handler) throw new Error(`${pattern} exports no ${method}`);
  return handler(request, { params: Promise.resolve(params) });
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The header scripts/start.ts would set for a request on this socket. */
export const fromSocket = (peer: string, listen = "127.0.0.1", forwarded = false) => ({
  [SOCKET_HEADER]: formatSocketStamp(socketSecret(), { peer, listen, forwarded }),
});
export const cookie = (token: string) => ({ cookie: `floorline_session=${token}` });

/** Each access suite starts from "no credential known" and restores the environment and clock it changes. */
export function setUpCleanAccessState(): void {
  const saved = { ...process.env };
  beforeAll(() => forgetCredentialsCache());
  afterEach(() => {
    for (const name of [
      "FLOORLINE_AUTH",
      "FLOORLINE_API_TOKEN",
      "HOST",
      "FLOORLINE_ALLOWED_HOSTS",
      "FLOORLINE_SESSION_IDLE_MINUTES",
      "FLOORLINE_SESSION_MAX_HOURS",
      "FLOORLINE_TRUSTED_PROXIES",
    ]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    accessClock.now = () => new Date();
  });
}
