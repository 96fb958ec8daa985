// The OpenAPI 3.1 document, generated from the route declarations (lib/routes/): paths and
// methods as declared, security from each method's scope, and every schema from the zod
// schemas the handlers use (`z.toJSONSchema`), so there is no second, hand-written copy to
// fall out of date.
import { z } from "zod";
import { METHODS, type Operation, type RouteContract } from "../http/contract";
import { ROUTE_LIST } from "../http/registry";
import { headroomErrorSchema } from "../schemas/headroom";
import { errorBodySchema } from "../schemas/errors";
import { TAGS } from "./tags";

type Json = Record<string, unknown>;

const OPENAPI_VERSION = "3.1.0";

/** Why each error status happens, for the reference. */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Malformed JSON.",
  401: "Missing, unknown or revoked credentials (when auth is on).",
  403: "The key lacks the scope this operation needs, or the request's host or origin is not allowed.",
  404: "No such resource.",
  405: "Method not allowed.",
  409: "Conflict: the same key with a different body, or an ambiguous prefix.",
  410: "Gone: the original was evicted or expired; retrying will not help.",
  413: "The body is too large.",
  415: "The body is not JSON (or is compressed).",
  422: "Valid JSON (or query) that fails validation; `issues` names each problem.",
  429: "Too many requests; retry after `Retry-After` seconds.",
  503: "The database is unavailable; retry after `Retry-After` seconds.",
};

/** The same, for the Headroom-compatible endpoints' `{"detail": ...}` answers. */
const HEADROOM_ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "`detail` says what is wrong: malformed JSON, no `hash`, a key that is not 12 to 64 hex, or not a `headroom_retrieve` tool call.",
  404: "Nothing to return: `status` says whether the original was never stored (`missing`), `evicted` or `expired`, and `retryable` is false; or, on the path form, a key that is not a key at all (only `detail`).",
  409: "The prefix names several originals (`status: ambiguous`).",
  413: "The body is too large (`detail`).",
  415: "The body is not JSON (`detail`).",
};

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "fl_<id>_<secret>",
    description: "An API key (`Authorization: Bearer fl_...`). Scopes: ingest, read, admin.",
  },
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: "floorline_session",
    description: "A dashboard operator's session (sign in at /sign-in).",
  },
} as const;

class SchemaCollector {
  readonly components: Record<string, Json> = {};

  /** A zod schema as JSON Schema, its named parts moved to `#/components/schemas`. */
  convert(schema: z.ZodType, io: "input" | "output"): Json {
    const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Json;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    for (const [id, def] of Object.entries(defs)) {
      const rewritten = rewriteRefs(def) as Json;
      const existing = this.components[id];
      if (existing && JSON.stringify(existing) !== JSON.stringify(rewritten)) {
        throw new Error(`Two different schemas are both named ${id} in the OpenAPI document.`);
      }
      this.components[id] = rewritten;
    }
    return rewriteRefs(json) as Json;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" ? v.replace(/^#\/\$defs\//, "#/components/schemas/") : rewriteRefs(v),
    ]),
  );
}

function pathParamNames(pattern: string): string[] {
  return [...pattern.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] ?? "");
}

/** The error statuses an operation can answer, from its shape and its own list. */
function errorStatuses(spec: Operation): number[] {
  // 403 for everyone: a Host that is not allowed is refused whatever the route's scope.
  const statuses = new Set([...(spec.errors ?? []), 403]);
  if (spec.scope !== "public") statuses.add(401);
  // A Headroom endpoint reads loose JSON and answers what it cannot use with a 400, never a 422.
  if (spec.body || spec.bodyMedia)
    for (const s of spec.errorBody === "detail" ? [400, 413, 415] : [400, 413, 415, 422]) statuses.add(s);
  if (spec.query) statuses.add(422);
  statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

function operationId(pattern: string, method: string): string {
  const words = pattern
    .replace(/^\/api\/v1\//, "")
    .replace(/^\//, "")
    .split(/[/{}_.-]+/)
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join("");
}

function buildOperation(collector: SchemaCollector, pattern: string, method: string, spec: Operation): Json {
  const { scope } = spec;
  const parameters: Json[] = pathParamNames(pattern).map((name) => ({
    name,
    in: "path",
    required: true,
    schema: spec.pathParams?.[name] ? collector.convert(spec.pathParams[name], "input") : { type: "string" },
  }));
  if (spec.query) {
    const query = collector.convert(spec.query, "input");
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: "query",
        required: required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }

  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const content: Record<string, Json> = {};
    if (response.schema) content["application/json"] = { schema: collector.convert(response.schema, "output") };
    for (const [type, media] of Object.entries(response.media ?? {})) content[type] = media;
    responses[status] = {
      description: response.description,
      ...(Object.keys(content).length > 0 ? { content } : {}),
    };
  }
  const errorRef = collector.convert(errorBodySchema, "output");
  const detailRef = spec.errorBody === "detail" ? collector.convert(headroomErrorSchema, "output") : null;
  for (const status of errorStatuses(spec)) {
    // Refused before the handler (credential, Host) or a server error: the API's own contract.
    const ours = detailRef === null || status === 401 || status === 403 || status >= 500;
    responses[String(status)] = {
      description: ours ? (ERROR_DESCRIPTIONS[status] ?? "Error.") : (HEADROOM_ERROR_DESCRIPTIONS[status] ?? "Error."),
      content: { "application/json": { schema: ours ? errorRef : detailRef } },
    };
  }

  const requestContent: Record<string, Json> = {};
  if (spec.body) requestContent["application/json"] = { schema: collector.convert(spec.body, "input") };
  for (const [type, schema] of Object.entries(spec.bodyMedia ?? {})) requestContent[type] = { schema };

  return {
    operationId: operationId(pattern, method),
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    "x-floorline-scope": scope,
    security: scope === "public" ? [] : [{ bearerAuth: [] }, { sessionCookie: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(Object.keys(requestContent).length > 0 ? { requestBody: { required: true, content: requestContent } } : {}),
    responses,
  };
}

interface DocumentOptions {
  version?: string;
  /** The server's own URL, when known (the served document uses the request's origin). */
  serverUrl?: string;
}

export function buildOpenApiDocument(options: DocumentOptions = {}): Json {
  const collector = new SchemaCollector();
  const paths: Record<string, Json> = {};
  for (const route of ROUTE_LIST as readonly RouteContract[]) {
    const item: Json = {};
    for (const method of METHODS) {
      const spec: Operation | undefined = route.methods[method];
      if (spec) item[method.toLowerCase()] = buildOperation(collector, route.path, method, spec);
    }
    paths[route.path] = item;
  }
  const usedTags = new Set(
    Object.values(paths).flatMap((item) => Object.values(item).map((op) => (op as { tags: string[] }).tags[0])),
  );
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Floorline API",
      version: options.version ?? "1",
      summary: "Observability for agent context-compression chains.",
      description:
        'Every error answers `{"error": {"code", "message", "issues"?}}`. Lists answer `{"items", "next_cursor"}` and take `cursor` and `limit` (1-500, default 50). When auth is on, send an API key as `Authorization: Bearer fl_...`; each operation names the scope it needs in `x-floorline-scope`.',
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: options.serverUrl ?? "/", description: "This server" }],
    tags: TAGS.filter((t) => usedTags.has(t.name)),
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: Object.fromEntries(Object.entries(collector.components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
