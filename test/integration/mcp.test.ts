// Long because every tool is held to the route it mirrors, over both transports.
// MCP against the built app, with the official MCP TypeScript SDK's client over both transports:
// streamable HTTP at /mcp, and stdio through the SDK package's `floorline-mcp` bin (as built),
// on PGlite, or on PostgreSQL when TEST_DATABASE_URL is set. Each tool's answer is held to what
// the route it mirrors answers for the same data; the access cases send what a hostile or a
// misconfigured client would and expect the contract's error body.
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppOnOwnDatabase } from "../support/app-server";

const START_TIMEOUT = 300_000;
const TOKEN = "mcp-test-token-0123456789abcdefghijklmnop";
const SDK_DIR = path.join(import.meta.dirname, "../../sdk/typescript");
const BIN = path.join(
  SDK_DIR,
  (JSON.parse(readFileSync(path.join(SDK_DIR, "package.json"), "utf8")) as { bin: Record<string, string> }).bin[
    "floorline-mcp"
  ] as string,
);

let app: AppServer;
let stopApp: () => Promise<void>;
const keys: Record<"all" | "read" | "ingest" | "admin", string> = { all: "", read: "", ingest: "", admin: "" };

// biome-ignore lint/suspicious/noExplicitAny: answers are walked as plain JSON, checked by the assertions.
type Json = Record<string, any>;

async function api(method: string, route: string, body?: unknown, key = TOKEN) {
  const response = await fetch(`${app.base}${route}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function httpClient(key: string | undefined): Promise<Client> {
  const client = new Client({ name: "floorline-test", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.base}/mcp`), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

async function stdioClient(key: string): Promise<Client> {
  const client = new Client({ name: "floorline-test-stdio", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--url", app.base, "--key", key],
      stderr: "pipe",
    }),
  );
  return client;
}

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Json;

/** A raw POST to /mcp, as a client that is not an MCP SDK would send it. */
function rawMcp(headers: Record<string, string>, body: string = JSON.stringify(initialize)) {
  return fetch(`${app.base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });
}
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const callTool = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } });

/** fetch sends the URL's own Host whatever it is given: a forged one goes through node:http. */
function forgedHost(headers: Record<string, string>): Promise<Response> {
  const body = JSON.stringify(initialize);
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${app.base}/mcp`,
      {
        method: "POST",
        headers: {
          ...headers,
          host: "evil.example",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () => resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 0 })));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
}

// The chain's source states these facts; the candidate below keeps some and drops the rest.
const SOURCE =
  "Release 3.9.0 of orders-api adds PostgreSQL 17 support. Request timeout is 30 seconds. " +
  "The build on 2026-03-14 failed with ERR_CONN_RESET on host db-7.internal. Retry budget is 5 attempts.";
const CANDIDATE = "orders-api 3.9.0 adds PostgreSQL 17 support; timeout 30 seconds.";
const FIRST =
  "orders-api 3.9.0: PostgreSQL 17, timeout 30 seconds; 2026-03-14 build failed, ERR_CONN_RESET on db-7.internal; 5 retries.";
const SECOND = "orders-api release; a build failed.";
const ORIGINAL = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: `ord-${i}`, total: i * 7 })));

beforeAll(async () => {
  ({ app, stop: stopApp } = await startAppOnOwnDatabase("mcp", { FLOORLINE_API_TOKEN: TOKEN }, START_TIMEOUT));
  for (const [name, scopes] of [
    ["all", ["ingest", "read"]],
    ["read", ["read"]],
    ["ingest", ["ingest"]],
    ["admin", ["admin"]],
  ] as const) {
    const made = await api("POST", "/api/v1/keys", { name: `mcp-${name}`, scopes });
    expect(made.status).toBe(201);
    keys[name] = made.body.key as string;
  }
  // A chain whose pass 1 carries its source, then a pass that collapses under the default floor.
  const pass = (n: number, extra: Record<string, unknown>) => ({
    chain_id: "mcp-chain",
    pass_id: `mcp-chain.p${n}`,
    pass_number: n,
    current_content_hash: "",
    current_size_bytes: 4096,
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9,
    content_class: "summary",
    ...extra,
  });
  expect(
    (
      await api("POST", "/api/v1/passes", {
        receipts: [
          pass(1, { input_content: SOURCE, content: FIRST, current_size_bytes: Buffer.byteLength(FIRST) }),
          pass(2, { content: SECOND, current_size_bytes: Buffer.byteLength(SECOND), semantic_density_score: 0.2 }),
        ],
      })
    ).status,
  ).toBe(201);
  expect(
    (await api("POST", "/api/v1/originals", { original: ORIGINAL, original_items: 40, compressed_items: 8 })).status,
  ).toBe(201);
  for (const [traceId, nodes] of [
    [
      "mcp-trace-1",
      [
        { node_id: "a", node_type: "EXPLORATORY_CHATTER", content: "maybe the pool?", verification_receipt: null },
        {
          node_id: "b",
          node_type: "FALSIFIED_PATH",
          content: "raise the pool size",
          verification_receipt: "pool=50 still 504",
        },
        {
          node_id: "c",
          node_type: "VERIFIED_CONCLUSION",
          content: "the proxy idle timeout is 30s",
          verification_receipt: "curl -v shows reset at 30.0s",
        },
      ],
    ],
    [
      "mcp-trace-2",
      [
        {
          node_id: "d",
          node_type: "FALSIFIED_PATH",
          content: "disable keep-alive",
          verification_receipt: "ab -k: same 504",
        },
        {
          node_id: "e",
          node_type: "VERIFIED_CONCLUSION",
          content: "set idle timeout to 120s",
          verification_receipt: "load test 0 errors",
        },
      ],
    ],
  ] as const) {
    expect((await api("POST", "/api/v1/traces", { trace_id: traceId, chain_id: "mcp-chain", nodes })).status).toBe(201);
  }
}, START_TIMEOUT);

afterAll(async () => {
  await stopApp?.();
}, 60_000);

describe.each(["http", "stdio"] as const)("MCP over %s", (transport) => {
  let client: Client;
  beforeAll(async () => {
    client = transport === "http" ? await httpClient(keys.all) : await stdioClient(keys.all);
  });
  afterAll(async () => client?.close());

  it("lists the four tools with descriptions written for a model", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "floorline_chain",
      "floorline_check",
      "floorline_constraints",
      "floorline_retrieve",
    ]);
    for (const tool of tools) expect(tool.description?.length ?? 0).toBeGreaterThan(200);
    const check = tools.find((t) => t.name === "floorline_check");
    expect(Object.keys(check?.inputSchema.properties ?? {}).sort()).toEqual([
      "chain_id",
      "content",
      "content_class",
      "source",
    ]);
    expect(check?.inputSchema.required).toEqual(["content"]);
  });

  it("floorline_retrieve answers the original that POST /api/v1/retrieve answers, by a marker's prefix", async () => {
    const stored = await api("POST", "/api/v1/retrieve", { hash: "" });
    expect(stored.status).toBe(422);
    const listed = await api("GET", "/api/v1/originals?limit=5");
    const hash = (listed.body.items as Array<{ hash: string }>)[0]?.hash as string;
    const viaRoute = await api("POST", "/api/v1/retrieve", { hash: hash.slice(0, 12) });
    expect(viaRoute.body.original).toBe(ORIGINAL);

    const result = (await client.callTool({
      name: "floorline_retrieve",
      arguments: { hash: hash.slice(0, 12) },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content[0]).toEqual({ type: "text", text: ORIGINAL });
    expect(structured(result).hash).toBe(hash);

    const missing = (await client.callTool({
      name: "floorline_retrieve",
      arguments: { hash: "0123456789ab" },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(structured(missing).error.code).toBe("unknown_hash");
  });

  it("floorline_check with a source measures as POST /api/v1/measure and judges as /evaluate", async () => {
    const args = { content: CANDIDATE, source: SOURCE, content_class: "summary" };
    const result = structured(await client.callTool({ name: "floorline_check", arguments: args }));
    const measured = await api("POST", "/api/v1/measure", args);
    expect(measured.status).toBe(200);
    expect(result.measured).toEqual(measured.body);
    const evaluated = await api("POST", "/api/v1/evaluate", {
      pass: {
        pass_id: "candidate",
        pass_number: 1,
        current_content_hash: result.content_hash,
        current_size_bytes: Buffer.byteLength(CANDIDATE),
        is_parseable: measured.body.parseable,
        schema_valid: measured.body.schema_valid ?? true,
        semantic_density_score: measured.body.semantic_density_score,
      },
      policy: { min_size_bytes: 256, min_semantic_density: 0.5, max_pass_number: 4 },
    });
    expect({ verdict: result.verdict, directive: result.directive, manifest_digest: result.manifest_digest }).toEqual(
      evaluated.body,
    );
    expect(result.source).toBe("given");
    expect(result.facts_lost).toBe(measured.body.facts.lost);
    expect(result.facts_lost).toBeGreaterThan(0);
  });

  it("floorline_check with a chain_id uses the chain's stored source, class and next pass number", async () => {
    const result = structured(
      await client.callTool({ name: "floorline_check", arguments: { content: CANDIDATE, chain_id: "mcp-chain" } }),
    );
    expect(result.source).toBe("chain");
    expect(result.pass_number).toBe(3);
    expect(result.content_class).toBe("summary");
    const measured = await api("POST", "/api/v1/measure", {
      content: CANDIDATE,
      source: SOURCE,
      content_class: "summary",
    });
    expect(result.measured).toEqual(measured.body);
    expect(result.measured.lost_examples.join(" ")).toContain("ERR_CONN_RESET");
    const evaluated = await api("POST", "/api/v1/evaluate", {
      pass: {
        pass_id: "candidate",
        pass_number: 3,
        current_content_hash: result.content_hash,
        current_size_bytes: Buffer.byteLength(CANDIDATE),
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: measured.body.semantic_density_score,
      },
      policy: { min_size_bytes: 256, min_semantic_density: 0.5, max_pass_number: 4 },
    });
    expect(result.verdict).toBe(evaluated.body.verdict);
    // Under the default floor's 256 bytes: the guard stops it.
    expect(result.verdict).toBe("COLLAPSE_IMMINENT");
    expect(result.usable).toBe(false);
  });

  it("floorline_constraints reads a trace and a chain's traces as the action space does", async () => {
    const one = structured(
      await client.callTool({ name: "floorline_constraints", arguments: { trace_id: "mcp-trace-1" } }),
    );
    expect(one.binding_axioms).toEqual([
      {
        axiom: "the proxy idle timeout is 30s",
        receipts: [{ trace_id: "mcp-trace-1", receipt: "curl -v shows reset at 30.0s" }],
        contradicted: false,
      },
    ]);
    expect(one.superseded_hypotheses).toEqual([
      { hypothesis: "raise the pool size", ruled_out_by: [{ trace_id: "mcp-trace-1", receipt: "pool=50 still 504" }] },
    ]);
    expect(one.invalidations).toEqual([
      { trace_id: "mcp-trace-1", path: "raise the pool size", receipt: "pool=50 still 504" },
    ]);

    const chain = structured(
      await client.callTool({ name: "floorline_constraints", arguments: { chain_id: "mcp-chain" } }),
    );
    expect(chain.trace_ids).toEqual(["mcp-trace-1", "mcp-trace-2"]);
    expect(chain.binding_axioms.map((a: { axiom: string }) => a.axiom)).toEqual([
      "the proxy idle timeout is 30s",
      "set idle timeout to 120s",
    ]);
    expect(chain.superseded_hypotheses.map((h: { hypothesis: string }) => h.hypothesis)).toEqual([
      "raise the pool size",
      "disable keep-alive",
    ]);
    const neither = (await client.callTool({ name: "floorline_constraints", arguments: {} })) as CallToolResult;
    expect(neither.isError).toBe(true);
  });

  it("floorline_constraints gives a successor the walls of its whole lineage", async () => {
    const successor = `mcp-successor-${transport}`;
    const stored = await api("POST", "/api/v1/traces", {
      trace_id: successor,
      parent_trace_id: "mcp-trace-1",
      nodes: [
        { node_id: "s1", node_type: "EXPLORATORY_CHATTER", content: "Raise the pool size" },
        { node_id: "s2", node_type: "VERIFIED_CONCLUSION", content: "the db is fine", verification_receipt: "ping ok" },
      ],
    });
    expect(stored.status).toBe(201);
    const result = structured(
      await client.callTool({ name: "floorline_constraints", arguments: { trace_id: successor } }),
    );
    expect(result.lineage).toEqual(["mcp-trace-1", successor]);
    expect(result.binding_axioms.map((a: { axiom: string }) => a.axiom)).toEqual([
      "the proxy idle timeout is 30s",
      "the db is fine",
    ]);
    expect(result.superseded_hypotheses).toEqual([
      { hypothesis: "raise the pool size", ruled_out_by: [{ trace_id: "mcp-trace-1", receipt: "pool=50 still 504" }] },
    ]);
    expect(result.findings).toMatchObject([
      {
        kind: "wall_reexplored",
        ancestor_trace_id: "mcp-trace-1",
        node_id: "s1",
        ancestor_receipt: "pool=50 still 504",
      },
    ]);
  });

  it("floorline_chain answers the chain's statuses, collapse point and findings as GET /api/v1/chains does", async () => {
    const result = structured(await client.callTool({ name: "floorline_chain", arguments: { chain_id: "mcp-chain" } }));
    const detail = await api("GET", "/api/v1/chains/mcp-chain");
    const listed = await api("GET", "/api/v1/chains?limit=500");
    const summary = (listed.body.items as Array<{ chain_id: string; statuses: string[] }>).find(
      (c) => c.chain_id === "mcp-chain",
    );
    expect(result.collapse_point).toEqual(detail.body.collapse_point);
    expect(result.collapse_point).toMatchObject({ pass_number: 2 });
    expect(result.findings).toEqual(detail.body.integrity);
    expect(result.statuses).toEqual(summary?.statuses);
    expect(result.pass_count).toBe(2);
    expect(result.last_passes.map((p: { verdict: string }) => p.verdict)).toEqual(
      detail.body.passes.map((p: { effective_verdict: string }) => p.effective_verdict),
    );
    const unknown = (await client.callTool({
      name: "floorline_chain",
      arguments: { chain_id: "no-such" },
    })) as CallToolResult;
    expect(structured(unknown).error.code).toBe("not_found");
  });

  it("refuses a tool the key's scopes do not cover", async () => {
    const reader = transport === "http" ? await httpClient(keys.read) : await stdioClient(keys.read);
    try {
      const call = reader.callTool({ name: "floorline_check", arguments: { content: CANDIDATE, source: SOURCE } });
      if (transport === "http") {
        await expect(call).rejects.toSatisfy((e: unknown) => e instanceof StreamableHTTPError && e.code === 403);
      } else {
        await expect(call).rejects.toThrow(/403 insufficient_scope: The tool floorline_check needs the 'ingest' scope/);
      }
      // What it may do still works.
      const chain = structured(
        await reader.callTool({ name: "floorline_chain", arguments: { chain_id: "mcp-chain" } }),
      );
      expect(chain.pass_count).toBe(2);
    } finally {
      await reader.close();
    }
  });
});

describe("MCP access over HTTP", () => {
  it("without a key: 401 in the contract's shape, and the official client fails to connect", async () => {
    await expectError(await rawMcp({}), 401, "unauthenticated");
    await expect(httpClient(undefined)).rejects.toSatisfy(
      (e: unknown) => e instanceof StreamableHTTPError && e.code === 401,
    );
    await expectError(await rawMcp({ authorization: "Bearer fl_nope_nope" }), 401, "unauthenticated");
  });

  it("a key of neither ingest nor read cannot talk to it", async () => {
    await expectError(await rawMcp({ authorization: `Bearer ${keys.admin}` }), 403, "insufficient_scope");
  });

  it("lists a key only the tools it may call, and holds each call to the scopes of its route", async () => {
    const ingestOnly = await httpClient(keys.ingest);
    const reader = await httpClient(keys.read);
    try {
      expect((await ingestOnly.listTools()).tools.map((t) => t.name)).toEqual(["floorline_check"]);
      expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "floorline_chain",
        "floorline_constraints",
        "floorline_retrieve",
      ]);
      const checked = structured(
        await ingestOnly.callTool({ name: "floorline_check", arguments: { content: CANDIDATE, source: SOURCE } }),
      );
      expect(checked.verdict).toBeDefined();
    } finally {
      await ingestOnly.close();
      await reader.close();
    }
    const ingest = { authorization: `Bearer ${keys.ingest}` };
    // A chain's stored source is read data (GET /api/v1/chains/{id} needs read).
    await expectError(
      await rawMcp(ingest, callTool("floorline_check", { content: "x", chain_id: "mcp-chain" })),
      403,
      "insufficient_scope",
    );
    await expectError(
      await rawMcp(ingest, callTool("floorline_retrieve", { hash: "0123456789ab" })),
      403,
      "insufficient_scope",
    );
    await expectError(
      await rawMcp(ingest, callTool("floorline_chain", { chain_id: "mcp-chain" })),
      403,
      "insufficient_scope",
    );
    await expectError(
      await rawMcp(ingest, callTool("floorline_constraints", { chain_id: "mcp-chain" })),
      403,
      "insufficient_scope",
    );
    const read = { authorization: `Bearer ${keys.read}` };
    await expectError(
      await rawMcp(read, callTool("floorline_check", { content: "x", source: "y" })),
      403,
      "insufficient_scope",
    );
  });

  it("refuses a forged Host, a foreign Origin, an oversized body, a wrong Accept and non-JSON-RPC in the contract's shape", async () => {
    const key = { authorization: `Bearer ${keys.all}` };
    await expectError(await forgedHost(key), 403, "host_not_allowed");
    await expectError(await rawMcp({ ...key, origin: "https://evil.example" }), 403, "cross_site_request");
    const huge = callTool("floorline_check", { content: "a".repeat(11 * 1024 * 1024), source: "b" });
    await expectError(await rawMcp(key, huge), 413, "payload_too_large");
    await expectError(await rawMcp({ ...key, accept: "application/json" }), 406, "not_acceptable");
    await expectError(await rawMcp(key, JSON.stringify({ hello: "world" })), 422, "validation_failed");
    await expectError(await rawMcp(key, "{"), 400, "invalid_json");
    await expectError(await rawMcp({ ...key, "content-type": "text/plain" }), 415, "unsupported_media_type");
    await expectError(await rawMcp({ ...key, "mcp-protocol-version": "1999-01-01" }), 400, "bad_request");
    const get = await fetch(`${app.base}/mcp`, { headers: { ...key, accept: "text/event-stream" } });
    await expectError(get, 405, "method_not_allowed");
    // A same-origin page's Origin is this server's own.
    expect((await rawMcp({ ...key, origin: app.base })).status).toBe(200);
  });

  it("a candidate over the measure limit is the tool's refusal, as POST /api/v1/measure answers 413", async () => {
    const client = await httpClient(keys.all);
    try {
      const result = (await client.callTool({
        name: "floorline_check",
        arguments: { content: "a".repeat(4 * 1024 * 1024 + 1), source: "b" },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(structured(result).error.code).toBe("payload_too_large");
    } finally {
      await client.close();
    }
  });
});
