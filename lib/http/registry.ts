// Every HTTP route the app serves, with the scope each method needs, gathered from the route
// declarations under lib/routes/ (lib/http/contract.ts): a route file serves one of them with
// `serve`, so the scope the wrapper checks, the methods a 405 names and the OpenAPI operation
// all come from that one object. The route list feeds everything that must cover every route
// (the access check, the fuzz tests, metrics labels, the OpenAPI document).
// `test/unit/route-registry.test.ts` fails when a route file under `app/` and this list disagree.
import { METHODS, type Method, type RouteContract, type Scope } from "./contract";
import { ACCESS_ROUTES } from "../routes/access";
import { CHAIN_ROUTES } from "../routes/chains";
import { INGEST_ROUTES } from "../routes/ingest";
import { MCP_ROUTES } from "../routes/mcp";
import { ORIGINAL_ROUTES } from "../routes/originals";
import { POLICY_ROUTES } from "../routes/policies";
import { SERVICE_ROUTES } from "../routes/service";
import { TRACE_ROUTES } from "../routes/traces";
import { WEBHOOK_ROUTES } from "../routes/webhooks";

export { METHODS, type Method, SCOPES, type Scope } from "./contract";

// Each concept's table in the order the OpenAPI document lists them (its tags group them again).
const TABLES = [
  SERVICE_ROUTES,
  INGEST_ROUTES,
  CHAIN_ROUTES,
  POLICY_ROUTES,
  ORIGINAL_ROUTES,
  TRACE_ROUTES,
  ACCESS_ROUTES,
  WEBHOOK_ROUTES,
  MCP_ROUTES,
] as const;

type RoutesOf<T> = T extends unknown ? T[keyof T] : never;
type DeclaredRoute = RoutesOf<(typeof TABLES)[number]>;

/** Every declared route; a path declared twice does not load. */
export const ROUTE_LIST: readonly DeclaredRoute[] = TABLES.flatMap((table) => Object.values(table) as DeclaredRoute[]);

type ScopeTable = {
  [R in DeclaredRoute as R["path"]]: {
    [M in keyof R["methods"] & Method]: R["methods"][M] extends { scope: infer S } ? S : never;
  };
};

/** Path patterns use `{name}` for a dynamic segment, as in OpenAPI. */
export const ROUTES = Object.fromEntries(
  ROUTE_LIST.map((route: RouteContract) => [
    route.path,
    Object.fromEntries(METHODS.flatMap((m) => (route.methods[m] ? [[m, route.methods[m].scope]] : []))),
  ]),
) as ScopeTable;

if (Object.keys(ROUTES).length !== ROUTE_LIST.length) {
  const paths = ROUTE_LIST.map((r) => r.path);
  throw new Error(`A route is declared twice: ${paths.filter((p, i) => paths.indexOf(p) !== i).join(", ")}`);
}

export type RoutePattern = keyof typeof ROUTES;

/**
 * Every page with the scope it needs: `read` pages need a signed-in operator (any role) when
 * auth is on, `admin` pages an admin, `public` nothing. Each page calls
 * `requirePage(<its pattern>)` first; `test/unit/route-registry.test.ts` fails when a
 * `page.tsx` is missing here or does not make that call with its own pattern.
 */
export const PAGES = {
  "/": "read",
  "/chains": "read",
  "/chains/{chain_id}": "read",
  "/chains/{chain_id}/action-space": "read",
  "/chains/{chain_id}/facts": "read",
  "/policies": "read",
  "/originals": "read",
  "/originals/{hash}": "read",
  "/traces": "read",
  "/traces/{trace_id}": "read",
  "/admin/keys": "admin",
  "/admin/operators": "admin",
  // Webhook targets and their delivery log are admin matters, like the API under /api/v1/webhooks.
  "/webhooks": "admin",
  "/sign-in": "public",
} as const satisfies Record<string, Scope>;

export type PagePattern = keyof typeof PAGES;

/** The scope a method of a route needs, or undefined when the route does not take that method. */
export function scopeOf(pattern: RoutePattern, method: string): Scope | undefined {
  return (ROUTES[pattern] as Partial<Record<string, Scope>>)[method.toUpperCase()];
}

/** The methods a route takes, for `Allow` headers and 405 answers. */
export function methodsOf(pattern: RoutePattern): Method[] {
  return METHODS.filter((m) => m in ROUTES[pattern]);
}
