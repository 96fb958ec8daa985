// What a route is, declared once: its path, and for each method it takes the scope that method
// needs and the schemas of its request and answers. The registry (lib/http/registry.ts), the
// OpenAPI document (lib/openapi/document.ts) and the route files (through `serve`) all read the
// same objects, declared by concept under lib/routes/.
import type { z } from "zod";

export const SCOPES = ["public", "ingest", "read", "admin", "ingest or read"] as const;
/**
 * `public`: no credential ever (health). `ingest or read`: a key with either (measuring reads
 * and writes nothing, and both an agent and a dashboard call it). The others are the API key
 * scopes of the contract.
 */
export type Scope = (typeof SCOPES)[number];

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

interface ResponseSpec {
  description: string;
  /** JSON body; omit for a body that is not JSON. */
  schema?: z.ZodType;
  /** Other media types this answer may take (text/csv, text/plain, text/event-stream). */
  media?: Record<string, { schema?: Record<string, unknown>; description?: string }>;
  headers?: Record<string, string>;
}

/** One method of a route: who may call it, and what it takes and answers. */
export interface Operation {
  scope: Scope;
  summary: string;
  description?: string;
  tag: string;
  /** A zod object whose keys are the query parameters. */
  query?: z.ZodObject;
  /** Path parameters that are checked beyond "a string" (e.g. a content class). */
  pathParams?: Record<string, z.ZodType>;
  body?: z.ZodType;
  /** Request media types other than JSON (OTLP protobuf). */
  bodyMedia?: Record<string, Record<string, unknown>>;
  responses: Record<number, ResponseSpec>;
  /** Error statuses particular to this operation; the usual ones are added from its shape. */
  errors?: number[];
  /**
   * "detail": a Headroom-compatible endpoint, whose client errors (its 405 included) are
   * FastAPI's `{"detail": ...}` (a refused credential or Host, and 503, stay the API's error
   * contract). `serve` answers in that dialect, and the OpenAPI document says so.
   */
  errorBody?: "detail";
}

type Operations = Partial<Record<Method, Operation>>;

/** Path patterns use `{name}` for a dynamic segment, as in OpenAPI; Next's folder is `[name]`. */
export interface RouteContract<P extends string = string, O extends Operations = Operations> {
  readonly path: P;
  readonly methods: O;
}

/** Declares a route; only the five methods of METHODS may be named. */
export function defineRoute<const P extends string, O extends Operations>(
  path: P,
  methods: O & Record<Exclude<keyof O, Method>, never>,
): RouteContract<P, O> {
  return { path, methods };
}

/** The methods a route takes, in METHODS order (for `Allow` headers and 405 answers). */
export function methodsOfRoute(route: RouteContract): Method[] {
  return METHODS.filter((m) => route.methods[m] !== undefined);
}

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
/** `/api/v1/chains/{chain_id}` → `{ chain_id: string }`: what Next.js passes a handler as `params`. */
export type ParamsOf<P extends string> = { [K in ParamNames<P>]: string };
