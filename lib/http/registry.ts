// Every HTTP route the app serves, with the scope each method needs. The route wrapper reads
// its scope from here, so a handler cannot forget to declare one, and the route list feeds
// everything that must cover every route (the access check, the fuzz tests, metrics labels,
// the OpenAPI document). `test/unit/route-registry.test.ts` fails when a route file under
// `app/` and this list disagree.

export const SCOPES = ["public", "ingest", "read", "admin", "ingest or read"] as const;
/**
 * `public`: no credential ever (health). `ingest or read`: a key with either (measuring reads
 * and writes nothing, and both an agent and a dashboard call it). The others are the API key
 * scopes of the contract.
 */
export type Scope = (typeof SCOPES)[number];

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

type RouteTable = Record<string, Partial<Record<Method, Scope>>>;

/** Path patterns use `{name}` for a dynamic segment, as in OpenAPI. */
export const ROUTES = {
  "/api/v1/health": { GET: "public" },
  "/api/v1/evaluate": { POST: "ingest" },
  "/api/v1/measure": { POST: "ingest or read" },
  "/api/v1/passes": { POST: "ingest" },
  "/api/v1/boundaries": { POST: "ingest" },
  "/api/v1/chains": { GET: "read" },
  "/api/v1/chains/{chain_id}": { GET: "read" },
  "/api/v1/chains/{chain_id}/events": { GET: "read" },
  "/api/v1/chains/{chain_id}/facts": { GET: "read" },
  "/api/v1/exports/chains": { GET: "read" },
  "/api/v1/policies": { GET: "read" },
  "/api/v1/policies/{content_class}": { GET: "read", PUT: "admin" },
  "/api/v1/policies/{content_class}/recommendation": { GET: "read" },
  // Deletions are `admin`, as every deletion is (a key that only stores cannot erase what an
  // operator may need to see); a client's report of a retrieval it served replaces the
  // entry's metadata, as storing it does: `ingest`.
  "/api/v1/originals": { GET: "read", POST: "ingest", DELETE: "admin" },
  "/api/v1/originals/{hash}": { GET: "read", DELETE: "admin" },
  "/api/v1/originals/{hash}/retrievals": { POST: "ingest" },
  "/api/v1/originals/count": { GET: "read" },
  "/api/v1/originals/stats": { GET: "read" },
  "/api/v1/retrieve": { POST: "read" },
  "/api/v1/otlp/v1/traces": { POST: "ingest" },
  // Headroom-compatible retrieval at the root, where Headroom's clients look for their proxy.
  "/v1/retrieve": { POST: "read" },
  "/v1/retrieve/{hash}": { GET: "read" },
  "/v1/retrieve/tool_call": { POST: "read" },
  "/v1/retrieve/stats": { GET: "read" },
  "/api/v1/traces": { GET: "read", POST: "ingest" },
  "/api/v1/traces/{trace_id}": { GET: "read" },
  "/api/v1/traces/compress": { POST: "ingest" },
  "/api/v1/trace-rejections": { GET: "read" },
  "/api/v1/keys": { GET: "admin", POST: "admin" },
  "/api/v1/keys/{id}": { DELETE: "admin" },
  "/api/v1/operators": { GET: "admin", POST: "admin" },
  "/api/v1/operators/{id}": { DELETE: "admin" },
  // Signing in and out needs no credential (it is how one gets one); GET answers who is signed in.
  "/api/v1/session": { GET: "public", POST: "public", DELETE: "public" },
  "/originals/{hash}/content": { GET: "read" },
  "/api/v1/webhooks": { GET: "admin", POST: "admin" },
  "/api/v1/webhooks/{id}": { GET: "admin", PATCH: "admin", DELETE: "admin" },
  "/api/v1/webhooks/{id}/deliveries": { GET: "admin" },
  "/api/v1/webhooks/{id}/test": { POST: "admin" },
  "/metrics": { GET: "read" },
  // MCP over streamable HTTP: a key with either scope may talk to it; each tool called then
  // needs the scopes of the routes it mirrors (lib/mcp/tools.ts `scopesOfCall`).
  "/mcp": { POST: "ingest or read" },
  // The document describes the API and holds no data; the reference page that reads it
  // shows nothing else, and its script is a static asset.
  "/api/v1/openapi.json": { GET: "public" },
  "/docs/api": { GET: "read" },
  "/docs/api/scalar.js": { GET: "public" },
} as const satisfies RouteTable;

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
