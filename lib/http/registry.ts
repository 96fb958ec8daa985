// Every HTTP route the app serves, with the scope each method needs. The route wrapper reads
// its scope from here, so a handler cannot forget to declare one, and the route list feeds
// everything that must cover every route (the access check, the fuzz tests, metrics labels,
// the OpenAPI document). `test/unit/route-registry.test.ts` fails when a route file under
// `app/` and this list disagree.

export const SCOPES = ["public", "ingest", "read", "admin"] as const;
/** `public`: no credential ever (health). The others are the API key scopes of the contract. */
export type Scope = (typeof SCOPES)[number];

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

type RouteTable = Record<string, Partial<Record<Method, Scope>>>;

/** Path patterns use `{name}` for a dynamic segment, as in OpenAPI. */
export const ROUTES = {
  "/api/v1/health": { GET: "public" },
  "/api/v1/evaluate": { POST: "ingest" },
  "/api/v1/passes": { POST: "ingest" },
  "/api/v1/boundaries": { POST: "ingest" },
  "/api/v1/chains": { GET: "read" },
  "/api/v1/chains/{chain_id}": { GET: "read" },
  "/api/v1/chains/{chain_id}/events": { GET: "read" },
  "/api/v1/exports/chains": { GET: "read" },
  "/api/v1/policies": { GET: "read" },
  "/api/v1/policies/{content_class}": { GET: "read", PUT: "admin" },
  "/api/v1/policies/{content_class}/recommendation": { GET: "read" },
  "/api/v1/originals": { GET: "read", POST: "ingest" },
  "/api/v1/originals/{hash}": { GET: "read" },
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
  "/originals/{hash}/content": { GET: "read" },
} as const satisfies RouteTable;

export type RoutePattern = keyof typeof ROUTES;

/** The scope a method of a route needs, or undefined when the route does not take that method. */
export function scopeOf(pattern: RoutePattern, method: string): Scope | undefined {
  return (ROUTES[pattern] as Partial<Record<string, Scope>>)[method.toUpperCase()];
}

/** The methods a route takes, for `Allow` headers and 405 answers. */
export function methodsOf(pattern: RoutePattern): Method[] {
  return METHODS.filter((m) => m in ROUTES[pattern]);
}
