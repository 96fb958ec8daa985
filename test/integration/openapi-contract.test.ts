// The OpenAPI document against the live handlers: every route of the registry gets real
// requests (successes and errors) against a real database, and every answer must have a
// documented status, a documented media type, and (for JSON) a body that the document's
// schema accepts. A route added without a case here fails the coverage test. Long because
// it is the one table of cases per route, which the coverage test reads as a whole.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, type RoutePattern } from "@/lib/http/registry";
import { setStoreStatsSource } from "@/lib/observability/metrics";
import { getStoreStats } from "@/db/queries/originals/metrics";
import { setUpTestDatabase } from "../support/database";
import { doc, validatorFor } from "../support/openapi";

setUpTestDatabase({ from: "demo" });

interface Case {
  name: string;
  path?: Record<string, string>;
  query?: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  env?: Record<string, string>;
  status: number;
}

const FULL = "a".repeat(64);
const receipt = {
  chain_id: "contract-chain",
  pass_id: "contract.p1",
  pass_number: 1,
  current_content_hash: "h1",
  current_size_bytes: 4096,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
};
const evaluateItem = {
  pass: { ...receipt, chain_id: undefined },
  policy: { min_size_bytes: 256, min_semantic_density: 0.5, max_pass_number: 4 },
};
const nodes = [
  { node_id: "n1", node_type: "VERIFIED_CONCLUSION", content: "axiom", verification_receipt: "r1" },
  { node_id: "n2", node_type: "FALSIFIED_PATH", content: "dead end -> no", verification_receipt: "r2" },
];
/** An OTLP/JSON export of one span with these attributes. */
function otlpExport(attributes: Record<string, string>) {
  return {
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              {
                traceId: "5b8efff798038103d269b633813fc60c",
                spanId: "eee19b7ec3c1b174",
                name: "compress",
                startTimeUnixNano: "1700000000000000000",
                endTimeUnixNano: "1700000000100000000",
                attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
              },
            ],
          },
        ],
      },
    ],
  };
}
const AUTH = { FLOORLINE_API_TOKEN: "contract-token" };
const unauthenticated: Case = { name: "without the token", env: AUTH, status: 401 };
let originalHash = "";
let webhookId = "";
let keyId = "";
let operatorId = "";
/** The access routes run with auth forced off, so the keys and operators they create do not turn it on for the rest. */
const OFF = { FLOORLINE_AUTH: "off" };
const operator = { name: "contract-operator", role: "admin", password: "a long enough password" };

/** Per route and method, the requests to send: at least one success and the reachable errors. */
const CASES: Record<string, () => Case[]> = {
  "GET /api/v1/health": () => [{ name: "up", status: 200 }],
  "POST /api/v1/evaluate": () => [
    { name: "one", body: evaluateItem, status: 200 },
    { name: "batch", body: [evaluateItem, evaluateItem], status: 200 },
    { name: "malformed JSON", raw: "{", status: 400 },
    { name: "invalid", body: { pass: {} }, status: 422 },
    { name: "not JSON", raw: "x", headers: { "content-type": "text/plain" }, status: 415 },
    { ...unauthenticated, body: evaluateItem },
  ],
  "POST /api/v1/passes": () => [
    { name: "one", body: receipt, status: 201 },
    { name: "retry", body: receipt, status: 200 },
    { name: "batch", body: { receipts: [{ ...receipt, pass_id: "contract.p2", pass_number: 2 }] }, status: 201 },
    { name: "conflict", body: { ...receipt, current_size_bytes: 1 }, status: 409 },
    { name: "invalid batch", body: { receipts: [{ ...receipt, semantic_density_score: 3 }] }, status: 422 },
  ],
  "POST /api/v1/boundaries": () => [
    { name: "one", body: { chain_id: "contract-chain", pass_number: 2, strategy: "halt", reason: "r" }, status: 201 },
    {
      name: "batch retry",
      body: { boundaries: [{ chain_id: "contract-chain", pass_number: 2, strategy: "halt", reason: "r" }] },
      status: 200,
    },
    {
      name: "restore without pass",
      body: { chain_id: "c", pass_number: 2, strategy: "restore", reason: "r" },
      status: 422,
    },
  ],
  "GET /api/v1/chains": () => [
    { name: "page", query: "limit=2", status: 200 },
    { name: "filtered", query: "status=client_mismatch&sort=min_density", status: 200 },
    { name: "several statuses", query: "status=collapsed,continued_after_halt&range=all", status: 200 },
    { name: "repeated status keys", query: "status=restore_not_honoured&status=broken_integrity", status: 200 },
    { name: "unknown status", query: "status=collapsed,bogus", status: 422 },
    { name: "unknown range", query: "range=1y", status: 422 },
    { name: "bad limit", query: "limit=0", status: 422 },
    unauthenticated,
  ],
  "GET /api/v1/chains/{chain_id}": () => [
    { name: "demo chain", path: { chain_id: "demo-broken-receipts" }, status: 200 },
    { name: "with boundaries", path: { chain_id: "demo-schema-truncation" }, status: 200 },
    { name: "unknown", path: { chain_id: "no-such-chain" }, status: 404 },
  ],
  "GET /api/v1/chains/{chain_id}/events": () => [
    { name: "stream", path: { chain_id: "demo-healthy-orders" }, status: 200 },
    { name: "unknown", path: { chain_id: "no-such-chain" }, status: 404 },
  ],
  "GET /api/v1/chains/{chain_id}/facts": () => [
    { name: "demo restore", path: { chain_id: "demo-facts-restored" }, status: 200 },
    { name: "by fate", path: { chain_id: "demo-facts-restored" }, query: "fate=restored&limit=2", status: 200 },
    { name: "bad fate", path: { chain_id: "demo-facts-restored" }, query: "fate=gone", status: 422 },
    { name: "unknown", path: { chain_id: "no-such-chain" }, status: 404 },
  ],
  "GET /api/v1/exports/chains": () => [
    { name: "csv", status: 200 },
    { name: "json", query: "format=json", status: 200 },
    { name: "several statuses", query: "format=json&status=collapsed&status=restore_not_honoured", status: 200 },
    { name: "unknown status", query: "status=nope", status: 422 },
    { name: "bad format", query: "format=xml", status: 422 },
  ],
  "GET /api/v1/policies": () => [
    { name: "page", status: 200 },
    { name: "bad cursor", query: "cursor=nope", status: 422 },
  ],
  "GET /api/v1/policies/{content_class}": () => [
    { name: "stored", path: { content_class: "summary" }, status: 200 },
    { name: "default", path: { content_class: "never-seen" }, status: 200 },
    { name: "bad class", path: { content_class: "no spaces" }, status: 422 },
  ],
  "PUT /api/v1/policies/{content_class}": () => [
    {
      name: "new",
      path: { content_class: "contract" },
      body: { min_size_bytes: 1, min_semantic_density: 0.1, max_pass_number: 9 },
      status: 201,
    },
    {
      name: "same",
      path: { content_class: "contract" },
      body: { min_size_bytes: 1, min_semantic_density: 0.1, max_pass_number: 9 },
      status: 200,
    },
    { name: "invalid", path: { content_class: "contract" }, body: { min_size_bytes: -1 }, status: 422 },
  ],
  "GET /api/v1/originals": () => [
    { name: "page", status: 200 },
    { name: "gone ones", query: "status=gone", status: 200 },
    { name: "bad sort", query: "sort=nope", status: 422 },
  ],
  "POST /api/v1/originals": () => [
    { name: "new", body: { original: "contract original", original_items: 3, compressed_items: 1 }, status: 201 },
    { name: "again", body: { original: "contract original" }, status: 200 },
    {
      name: "tenant",
      body: { original: "contract original", tenant: "contract-t", metadata: { by: "contract" } },
      status: 201,
    },
    { name: "wrong hash", body: { original: "x", hash: FULL }, status: 422 },
  ],
  "GET /api/v1/originals/{hash}": () => [
    { name: "json", path: { hash: originalHash }, status: 200 },
    { name: "raw", path: { hash: originalHash }, query: "raw=1", status: 200 },
    { name: "peek", path: { hash: originalHash }, query: "peek=1&tenant=contract-t", status: 200 },
    { name: "unknown", path: { hash: FULL }, status: 404 },
    { name: "too short", path: { hash: "abc" }, status: 422 },
  ],
  "GET /api/v1/originals/count": () => [
    { name: "tenant", query: "tenant=contract-t&status=live", status: 200 },
    { name: "bad status", query: "status=nope", status: 422 },
  ],
  "POST /api/v1/originals/{hash}/retrievals": () => [
    { name: "counted", path: { hash: originalHash }, body: { tenant: "contract-t", metadata: { n: 1 } }, status: 200 },
    { name: "unknown", path: { hash: FULL }, body: {}, status: 404 },
    { name: "bad metadata", path: { hash: originalHash }, body: { metadata: 5 }, status: 422 },
  ],
  "DELETE /api/v1/originals/{hash}": () => [
    { name: "deleted", path: { hash: originalHash }, query: "tenant=contract-t", status: 200 },
    { name: "again", path: { hash: originalHash }, query: "tenant=contract-t", status: 200 },
    { name: "unknown", path: { hash: FULL }, status: 404 },
    { name: "too short", path: { hash: "abc" }, status: 422 },
  ],
  "DELETE /api/v1/originals": () => [
    { name: "cleared", query: "tenant=contract-t", status: 200 },
    { name: "no tenant", status: 422 },
  ],
  "GET /api/v1/originals/stats": () => [
    { name: "stats", status: 200 },
    { name: "bad hours", query: "hours=0", status: 422 },
  ],
  "POST /api/v1/retrieve": () => [
    { name: "hit", body: { hash: originalHash.slice(0, 12) }, status: 200 },
    { name: "unknown", body: { hash: FULL }, status: 404 },
    { name: "invalid", body: {}, status: 422 },
  ],
  "GET /api/v1/policies/{content_class}/recommendation": () => [
    { name: "demo class", path: { content_class: "search-results" }, status: 200 },
    { name: "not enough chains", path: { content_class: "never-seen" }, status: 422 },
    { name: "bad class", path: { content_class: "no spaces" }, status: 422 },
  ],
  "POST /api/v1/otlp/v1/traces": () => [
    { name: "empty export", body: { resourceSpans: [] }, status: 200 },
    { name: "span without receipt", body: otlpExport({ "service.name": "contract" }), status: 200 },
    { name: "not OTLP", body: { resourceSpans: 5 }, status: 400 },
    { name: "malformed JSON", raw: "{", status: 400 },
    { name: "neither encoding", raw: "x", headers: { "content-type": "text/plain" }, status: 415 },
    { ...unauthenticated, body: { resourceSpans: [] } },
  ],
  "POST /v1/retrieve": () => [
    { name: "hit", body: { hash: originalHash.slice(0, 12) }, status: 200 },
    { name: "unknown", body: { hash: FULL }, status: 404 },
    { name: "no hash", body: {}, status: 400 },
    { name: "malformed JSON", raw: "{", status: 400 },
    { ...unauthenticated, body: { hash: FULL } },
  ],
  "GET /v1/retrieve/{hash}": () => [
    { name: "hit", path: { hash: originalHash }, status: 200 },
    { name: "unknown", path: { hash: FULL }, status: 404 },
    { name: "not a key", path: { hash: "abc" }, status: 404 },
  ],
  "POST /v1/retrieve/tool_call": () => [
    {
      name: "anthropic hit",
      body: { tool_call: { id: "toolu_1", name: "headroom_retrieve", input: { hash: originalHash } } },
      status: 200,
    },
    {
      name: "openai miss",
      body: {
        provider: "openai",
        tool_call: { id: "call_1", function: { name: "headroom_retrieve", arguments: JSON.stringify({ hash: FULL }) } },
      },
      status: 200,
    },
    { name: "another tool", body: { tool_call: { id: "t", name: "search", input: {} } }, status: 400 },
  ],
  "GET /v1/retrieve/stats": () => [{ name: "stats", status: 200 }, unauthenticated],
  "GET /api/v1/traces": () => [
    { name: "page", status: 200 },
    { name: "search", query: "q=export&mismatch=false", status: 200 },
    { name: "bad cursor", query: "cursor=zz", status: 422 },
  ],
  "POST /api/v1/traces": () => [
    { name: "new", body: { trace_id: "contract-trace", nodes, keep_nodes: true }, status: 201 },
    { name: "again", body: { trace_id: "contract-trace", nodes, keep_nodes: true }, status: 200 },
    { name: "conflict", body: { trace_id: "contract-trace", nodes: nodes.slice(0, 1) }, status: 409 },
    {
      name: "fail closed",
      body: { trace_id: "contract-refused", nodes: [{ node_id: "x", node_type: "VERIFIED_CONCLUSION", content: "c" }] },
      status: 422,
    },
  ],
  "GET /api/v1/traces/{trace_id}": () => [
    { name: "stored", path: { trace_id: "contract-trace" }, status: 200 },
    { name: "demo", path: { trace_id: "demo-trace-cache-probe" }, status: 200 },
    { name: "unknown", path: { trace_id: "nope" }, status: 404 },
  ],
  "POST /api/v1/measure": () => [
    {
      name: "with a source",
      body: { content: "Postgres 17, 4 GB", source: "Release 3.9.0 adds Postgres 17 and 4 GB files." },
      status: 200,
    },
    { name: "broken JSON is a measurement", body: { content: "{", format: "json" }, status: 200 },
    { name: "no content", body: { source: "x" }, status: 422 },
  ],
  "POST /api/v1/traces/compress": () => [
    { name: "residual", body: { nodes }, status: 200 },
    {
      name: "fail closed",
      body: { nodes: [{ node_id: "x", node_type: "VERIFIED_CONCLUSION", content: "c" }] },
      status: 422,
    },
  ],
  "GET /api/v1/trace-rejections": () => [
    { name: "page", status: 200 },
    { name: "of a trace", query: "trace_id=contract-refused", status: 200 },
    { name: "bad limit", query: "limit=x", status: 422 },
  ],
  "GET /originals/{hash}/content": () => [
    { name: "whole", path: { hash: originalHash }, status: 200 },
    { name: "slice", path: { hash: originalHash }, query: "offset=0&length=4", status: 200 },
    { name: "bad offset", path: { hash: originalHash }, query: "offset=-1", status: 422 },
    { name: "unknown", path: { hash: FULL }, status: 404 },
  ],
  "POST /api/v1/webhooks": () => [
    {
      name: "new",
      body: { url: "http://127.0.0.1:9/hook", events: ["chain.collapsed"] },
      env: { FLOORLINE_WEBHOOK_ALLOW_PRIVATE: "1" },
      status: 201,
    },
    { name: "private target", body: { url: "http://127.0.0.1:9/hook", events: ["chain.collapsed"] }, status: 422 },
  ],
  "GET /api/v1/webhooks": () => [
    { name: "page", status: 200 },
    { name: "bad cursor", query: "cursor=zz", status: 422 },
  ],
  "GET /api/v1/webhooks/{id}": () => [
    { name: "one", path: { id: webhookId }, status: 200 },
    { name: "unknown", path: { id: "wh_nope" }, status: 404 },
  ],
  "PATCH /api/v1/webhooks/{id}": () => [
    { name: "pause", path: { id: webhookId }, body: { active: false, format: "slack" }, status: 200 },
    { name: "empty", path: { id: webhookId }, body: {}, status: 422 },
    { name: "unknown", path: { id: "wh_nope" }, body: { active: true }, status: 404 },
  ],
  "GET /api/v1/webhooks/{id}/deliveries": () => [
    { name: "log", path: { id: webhookId }, status: 200 },
    { name: "unknown", path: { id: "wh_nope" }, status: 404 },
  ],
  "POST /api/v1/webhooks/{id}/test": () => [
    { name: "queued", path: { id: webhookId }, body: {}, status: 202 },
    { name: "unknown", path: { id: "wh_nope" }, body: {}, status: 404 },
  ],
  "DELETE /api/v1/webhooks/{id}": () => [
    { name: "unknown", path: { id: "wh_nope" }, status: 404 },
    { name: "deleted", path: { id: webhookId }, status: 204 },
  ],
  "GET /metrics": () => [{ name: "exposition", status: 200 }, unauthenticated],
  "GET /api/v1/openapi.json": () => [{ name: "document", status: 200 }],
  "GET /docs/api": () => [{ name: "page", status: 200 }],
  "GET /docs/api/scalar.js": () => [{ name: "bundle", status: 200 }],
  "POST /mcp": () => {
    const accept = { accept: "application/json, text/event-stream" };
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "contract", version: "1" } },
    };
    return [
      { name: "initialize", body: initialize, headers: accept, status: 200 },
      {
        name: "a tool's refusal is a result",
        body: {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "floorline_chain", arguments: { chain_id: "nope" } },
        },
        headers: accept,
        status: 200,
      },
      { name: "without the stream type", body: initialize, status: 406 },
      { name: "not JSON-RPC", body: { hello: 1 }, headers: accept, status: 422 },
      { ...unauthenticated, body: initialize, headers: accept },
    ];
  },
  // Last: once a key or an operator exists, auth is on for the requests that follow.
  "POST /api/v1/keys": () => [
    { name: "new", body: { name: "contract key", scopes: ["read", "ingest"] }, env: OFF, status: 201 },
    { name: "no scopes", body: { name: "contract key", scopes: [] }, env: OFF, status: 422 },
    { ...unauthenticated, body: { name: "k", scopes: ["read"] } },
  ],
  "GET /api/v1/keys": () => [{ name: "all", env: OFF, status: 200 }, unauthenticated],
  "DELETE /api/v1/keys/{id}": () => [
    { name: "revoked", path: { id: keyId }, env: OFF, status: 200 },
    { name: "unknown", path: { id: "0000000000000000" }, env: OFF, status: 404 },
  ],
  "POST /api/v1/operators": () => [
    { name: "new", body: operator, env: OFF, status: 201 },
    { name: "name taken", body: operator, env: OFF, status: 409 },
    { name: "short password", body: { ...operator, name: "other", password: "x" }, env: OFF, status: 422 },
  ],
  "GET /api/v1/operators": () => [{ name: "all", env: OFF, status: 200 }],
  "POST /api/v1/session": () => [
    { name: "signed in", body: { name: operator.name, password: operator.password }, env: OFF, status: 201 },
    { name: "wrong password", body: { name: operator.name, password: "wrong" }, env: OFF, status: 401 },
    { name: "invalid", body: { name: 5 }, env: OFF, status: 422 },
  ],
  "GET /api/v1/session": () => [{ name: "anonymous", env: OFF, status: 200 }],
  "DELETE /api/v1/session": () => [{ name: "signed out", env: OFF, status: 204 }],
  "DELETE /api/v1/operators/{id}": () => [
    { name: "disabled", path: { id: operatorId }, env: OFF, status: 200 },
    { name: "unknown", path: { id: "999999" }, env: OFF, status: 404 },
  ],
};

const ORDER = Object.keys(CASES);

/** `app/api/v1/chains/[chain_id]/route.ts` for `/api/v1/chains/{chain_id}`. */
async function handlerOf(pattern: string, method: string) {
  const file = `@/app${pattern.replace(/\{([a-z_]+)\}/g, "[$1]")}/route`;
  const module = (await import(/* @vite-ignore */ file)) as Record<
    string,
    (r: Request, c: unknown) => Promise<Response>
  >;
  return module[method];
}

function withEnv<T>(env: Record<string, string> | undefined, run: () => Promise<T>): Promise<T> {
  if (!env) return run();
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return run().finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

beforeAll(async () => {
  setStoreStatsSource(getStoreStats);
}, 120_000);
afterAll(() => setStoreStatsSource(null));

describe("OpenAPI contract", () => {
  it("has cases for every route and method of the registry", () => {
    const expected = Object.entries(ROUTES).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m} ${p}`));
    expect(ORDER.slice().sort()).toEqual(expected.sort());
  });

  for (const key of ORDER) {
    it(`${key}: every answer is documented and matches its schema`, async () => {
      const [method, pattern] = key.split(" ") as [string, RoutePattern];
      const operation = doc.paths[pattern]?.[method.toLowerCase()];
      expect(operation, `${key} is not in the document`).toBeDefined();
      const handler = await handlerOf(pattern, method);
      if (!handler) throw new Error(`${key} has no handler`);
      for (const c of CASES[key]?.() ?? []) {
        const path = pattern.replace(/\{([a-z_]+)\}/g, (_, name) => encodeURIComponent(c.path?.[name] ?? ""));
        const body = c.raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
        const request = new Request(`http://localhost${path}${c.query ? `?${c.query}` : ""}`, {
          method,
          body,
          headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...c.headers },
        });
        const response = await withEnv(c.env, () => handler(request, { params: Promise.resolve(c.path ?? {}) }));
        const label = `${key} (${c.name})`;
        expect(response.status, `${label}: ${response.status}`).toBe(c.status);
        const documented = operation.responses[String(c.status)];
        expect(documented, `${label}: status ${c.status} is not documented`).toBeDefined();
        const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
        if (c.status === 204) {
          expect(await response.text()).toBe("");
          continue;
        }
        expect(Object.keys(documented.content ?? {}), `${label}: ${type} is not documented`).toContain(type);
        if (type === "text/event-stream") {
          await response.body?.cancel();
          continue;
        }
        const text = await response.text();
        if (type !== "application/json") continue;
        const schema = documented.content[type].schema;
        const validate = validatorFor(schema, `${key} ${c.status} ${type}`);
        const json = JSON.parse(text);
        expect(validate(json), `${label}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${text.slice(0, 500)}`).toBe(
          true,
        );
        if (key === "POST /api/v1/originals" && c.status === 201) originalHash = json.hash;
        if (key === "POST /api/v1/webhooks" && c.status === 201) webhookId = json.id;
        if (key === "POST /api/v1/keys" && c.status === 201) keyId = json.id;
        if (key === "POST /api/v1/operators" && c.status === 201) operatorId = String(json.id);
      }
    });
  }
});
