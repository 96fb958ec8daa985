// Distilled traces through the real route handlers on a real database (PGlite, or
// PostgreSQL when TEST_DATABASE_URL is set): every public vector in and back out, the
// fail-closed rejections, idempotency, and the list's filters and keyset pages. Long because
// the list's sections read the traces the earlier sections stored in the file's database.
import { readFileSync } from "node:fs";
import path from "node:path";
import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { traces } from "@/db/schema";
import { getChainTraceConstraints } from "@/db/queries/action-space";
import { buildActionSpace } from "@/lib/traces/action-space";
import { sha256Hex } from "@/lib/guard/hash";
import type { ReasoningNode } from "@/lib/traces/trace";
import { POST as compress } from "@/app/api/v1/traces/compress/route";
import { GET as listRoute, POST as submit } from "@/app/api/v1/traces/route";
import { GET as getRoute } from "@/app/api/v1/traces/[trace_id]/route";
import { GET as rejectionsRoute } from "@/app/api/v1/trace-rejections/route";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

interface Vector {
  nodes: ReasoningNode[];
  expect:
    | { conclusions: unknown[]; eviction_boundary_index: number; residual_digest: string }
    | { error: "missing_verification_receipt"; node_id: string; message: string };
}

const vectors: Vector[] = JSON.parse(readFileSync(path.join(__dirname, "../fixtures/trace-public.json"), "utf8"));
const noParams = params({});

async function post(body: unknown) {
  const response = await submit(jsonRequest("/api/v1/traces", { body }), noParams);
  return { status: response.status, body: await response.json() };
}

async function get(traceId: string) {
  const response = await getRoute(
    jsonRequest(`/api/v1/traces/${encodeURIComponent(traceId)}`),
    params({ trace_id: traceId }),
  );
  return { status: response.status, body: await response.json() };
}

async function list(query: Record<string, string>) {
  const response = await listRoute(jsonRequest(`/api/v1/traces?${new URLSearchParams(query)}`), noParams);
  return { status: response.status, body: await response.json() };
}

async function rejections(query: Record<string, string> = {}) {
  const response = await rejectionsRoute(
    jsonRequest(`/api/v1/trace-rejections?${new URLSearchParams(query)}`),
    noParams,
  );
  return { status: response.status, body: await response.json() };
}

async function allPages(query: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const page = await list(cursor ? { ...query, cursor } : query);
    expect(page.status).toBe(200);
    ids.push(...page.body.items.map((t: { trace_id: string }) => t.trace_id));
    cursor = page.body.next_cursor;
    if (!cursor) return ids;
  }
  throw new Error("pagination did not end");
}

const node = (
  node_id: string,
  node_type: ReasoningNode["node_type"],
  content: string,
  verification_receipt: string | null = null,
): ReasoningNode => ({
  node_id,
  node_type,
  content,
  verification_receipt,
});

describe("every public trace vector through POST /api/v1/traces and back through GET", () => {
  it.each(vectors.map((v, i) => [i, v] as const))("vector %i", async (i, v) => {
    const traceId = `vector-${i}`;
    // Alternate what the client claims and keeps, so every combination is stored somewhere.
    const keep = i % 2 === 0;
    const claimed = i % 3 === 0 ? "0".repeat(64) : "error" in v.expect ? undefined : v.expect.residual_digest;
    const submitted = await post({
      trace_id: traceId,
      chain_id: "vector-chain",
      nodes: v.nodes,
      keep_nodes: keep,
      residual_digest: claimed,
    });

    if ("error" in v.expect) {
      expect(submitted.status).toBe(422);
      expect(submitted.body.error.code).toBe("missing_verification_receipt");
      expect(submitted.body.error.node_id).toBe(v.expect.node_id);
      expect(submitted.body.error.message).toContain(v.expect.node_id);
      expect((await get(traceId)).status).toBe(404);
      const listed = await rejections({ trace_id: traceId });
      expect(listed.body.total).toBe(1);
      expect(listed.body.items[0]).toMatchObject({
        trace_id: traceId,
        chain_id: "vector-chain",
        node_id: v.expect.node_id,
      });
      expect(v.nodes[listed.body.items[0].node_index]?.node_id).toBe(v.expect.node_id);
      return;
    }

    expect(submitted.status).toBe(201);
    const { conclusions, eviction_boundary_index, residual_digest } = submitted.body;
    expect({ conclusions, eviction_boundary_index, residual_digest }).toEqual(v.expect);
    // Key order too: the residual reads as the reference's.
    expect(JSON.stringify({ conclusions, eviction_boundary_index, residual_digest })).toBe(JSON.stringify(v.expect));
    expect(submitted.body.client_residual_digest).toBe(claimed ?? null);
    expect(submitted.body.digest_mismatch).toBe(claimed !== undefined && claimed !== v.expect.residual_digest);
    expect(submitted.body.node_count).toBe(v.nodes.length);
    expect(submitted.body.omitted_falsified_paths).toBe(
      v.nodes.filter((n) => n.node_type === "FALSIFIED_PATH" && !n.verification_receipt).length,
    );
    expect(submitted.body.pruned_chatter_count).toBe(
      v.nodes.filter((n) => n.node_type === "EXPLORATORY_CHATTER").length,
    );
    expect(submitted.body.nodes).toEqual(
      keep ? v.nodes.map((n) => ({ ...n, verification_receipt: n.verification_receipt ?? null })) : null,
    );

    const fetched = await get(traceId);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(submitted.body);
    expect(JSON.stringify(fetched.body.conclusions)).toBe(JSON.stringify(v.expect.conclusions));

    const again = await post({
      trace_id: traceId,
      chain_id: "vector-chain",
      nodes: v.nodes,
      keep_nodes: keep,
      residual_digest: claimed,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(submitted.body);
  });

  it("lists every stored vector exactly once across keyset pages, and counts the rejections", async () => {
    const stored = vectors.flatMap((v, i) => ("error" in v.expect ? [] : [`vector-${i}`]));
    const listed = await allPages({ chain_id: "vector-chain", limit: "7" });
    expect([...listed].sort()).toEqual([...stored].sort());
    expect(new Set(listed).size).toBe(listed.length);
    const failed = vectors.filter((v) => "error" in v.expect).length;
    expect((await rejections({ chain_id: "vector-chain" })).body.total).toBe(failed);

    const mismatched = await allPages({ chain_id: "vector-chain", mismatch: "true" });
    expect(mismatched.length).toBeGreaterThan(0);
    const agreeing = await allPages({ chain_id: "vector-chain", mismatch: "false" });
    expect([...mismatched, ...agreeing].sort()).toEqual([...stored].sort());

    // A list item is the stored trace without its raw nodes.
    const page = await list({ chain_id: "vector-chain", limit: "500" });
    for (const item of page.body.items) {
      const { nodes, findings, ...detail } = (await get(item.trace_id)).body;
      expect(item).toMatchObject(detail);
      expect(item.finding_count).toBe(findings.length);
      expect(item.nodes_kept).toBe(nodes !== null);
      expect(item.axioms).toEqual(detail.conclusions.map((c: { axiom: string }) => c.axiom));
    }
    for (const id of mismatched) expect((await get(id)).body.client_residual_digest).toBe("0".repeat(64));
  });
});

describe("POST /api/v1/traces/compress stays byte for byte the reference", () => {
  it.each(vectors.map((v, i) => [i, v] as const))("vector %i", async (_i, v) => {
    const response = await compress(jsonRequest("/api/v1/traces/compress", { body: { nodes: v.nodes } }), noParams);
    if ("error" in v.expect) {
      expect(response.status).toBe(422);
      const body = await response.json();
      expect(body.error).toMatchObject({ code: "missing_verification_receipt", node_id: v.expect.node_id });
    } else {
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(JSON.stringify(v.expect));
    }
  });

  it("stores nothing, not even a rejection", async () => {
    const before = (await rejections()).body.total;
    const response = await compress(
      jsonRequest("/api/v1/traces/compress", { body: { nodes: [node("x", "VERIFIED_CONCLUSION", "unproven", null)] } }),
      noParams,
    );
    expect(response.status).toBe(422);
    expect((await rejections()).body.total).toBe(before);
  });
});

describe("storing traces", () => {
  const nodes = [
    node("a", "EXPLORATORY_CHATTER", "maybe?"),
    node("b", "FALSIFIED_PATH", "  Query-string API key  ", " HTTP 401 "),
    node("c", "FALSIFIED_PATH", "Basic auth", null),
    node("d", "VERIFIED_CONCLUSION", "Bearer auth is required", "HTTP 200"),
  ];

  it("is idempotent on trace_id: absent and null optional fields are the same body, anything else is 409", async () => {
    const first = await post({ trace_id: "idem-1", nodes });
    expect(first.status).toBe(201);
    expect(first.body.nodes).toBeNull();
    expect(first.body.invalidated_paths).toEqual(["Query-string API key -> HTTP 401"]);
    expect(first.body.omitted_falsified_paths).toBe(1);

    const same = await post({
      trace_id: "idem-1",
      chain_id: null,
      residual_digest: null,
      keep_nodes: false,
      nodes,
      extra: "ignored",
    });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(first.body);

    const kept = await post({ trace_id: "idem-1", nodes, keep_nodes: true });
    expect(kept.status).toBe(409);
    expect(kept.body.error.code).toBe("idempotency_conflict");
    const otherNodes = await post({ trace_id: "idem-1", nodes: nodes.slice(1) });
    expect(otherNodes.status).toBe(409);
    expect((await get("idem-1")).body).toEqual(first.body);
  });

  it("keeps the invalidations of a trace that has no axiom, though the reference residual has no place for them", async () => {
    const response = await post({ trace_id: "walls-only", chain_id: "walls", nodes: nodes.slice(0, 2) });
    expect(response.status).toBe(201);
    expect(response.body.conclusions).toEqual([]);
    expect(response.body.invalidated_paths).toEqual(["Query-string API key -> HTTP 401"]);
    expect(response.body.residual_digest).toBe(
      sha256Hex(JSON.stringify({ axioms: [], invalidations: ["Query-string API key -> HTTP 401"] })),
    );
  });

  it("records each fail-closed submission, and refuses it", async () => {
    const bad = [...nodes, node("e", "VERIFIED_CONCLUSION", "The cache is warm", "   ")];
    for (let i = 0; i < 2; i++) {
      const response = await post({ trace_id: "unverified", chain_id: "rejecting-chain", nodes: bad });
      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: "missing_verification_receipt", node_id: "e" });
      expect(response.body.error.issues).toEqual([
        { path: "nodes.4.verification_receipt", message: "required for VERIFIED_CONCLUSION" },
      ]);
    }
    const listed = await rejections({ chain_id: "rejecting-chain", limit: "1" });
    expect(listed.body.total).toBe(2);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({
      trace_id: "unverified",
      chain_id: "rejecting-chain",
      node_id: "e",
      node_index: 4,
      node_type: "VERIFIED_CONCLUSION",
      content: "The cache is warm",
      content_bytes: 17,
      content_truncated: false,
    });
    expect(listed.body.items[0].reason).toContain("e");
    expect(Date.parse(listed.body.items[0].created_at)).not.toBeNaN();
    const second = await rejections({ chain_id: "rejecting-chain", limit: "1", cursor: listed.body.next_cursor });
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].id).not.toBe(listed.body.items[0].id);
    expect(second.body.next_cursor).toBeNull();
    expect((await get("unverified")).status).toBe(404);
  });

  it("keeps the first 4 KiB of a refused node's content, cut on a character boundary", async () => {
    // 4,095 ASCII bytes then a 3-byte character that would straddle the limit.
    const content = `${"a".repeat(4095)}€${"b".repeat(5000)}`;
    const bad = [node("big", "VERIFIED_CONCLUSION", content, null)];
    expect((await post({ trace_id: "big-refused", chain_id: "big-chain", nodes: bad })).status).toBe(422);
    const [item] = (await rejections({ chain_id: "big-chain" })).body.items;
    expect(item).toMatchObject({ content: "a".repeat(4095), content_bytes: 4095 + 3 + 5000, content_truncated: true });
  });

  it("refuses malformed submissions with 422 and names the field", async () => {
    const response = await post({ trace_id: "", nodes: [{ node_id: "x", node_type: "GUESS", content: "" }] });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("validation_failed");
    const paths = response.body.error.issues.map((i: { path: string }) => i.path);
    expect(paths).toContain("trace_id");
    expect(paths).toContain("nodes.0.node_type");
  });
});

describe("GET /api/v1/traces: filters, search and keyset pages", () => {
  it("searches axiom, proof receipt and invalidation text, case-insensitively, with wildcards taken literally", async () => {
    await post({
      trace_id: "search-1",
      chain_id: "search-chain",
      nodes: [
        node("1", "VERIFIED_CONCLUSION", "Path /srv/Data is READ-ONLY", "EROFS exit 1"),
        node("2", "FALSIFIED_PATH", "retry with sudo", "EPERM"),
      ],
    });
    await post({
      trace_id: "search-2",
      chain_id: "search-chain",
      nodes: [
        node("1", "VERIFIED_CONCLUSION", "100% of rows carry an id", "schema match"),
        node("2", "EXPLORATORY_CHATTER", "read-only? maybe"),
      ],
    });
    const ids = async (q: string) =>
      (await list({ chain_id: "search-chain", q })).body.items.map((t: { trace_id: string }) => t.trace_id);
    expect(await ids("read-only")).toEqual(["search-1"]);
    expect(await ids("erofs")).toEqual(["search-1"]);
    expect(await ids("SUDO -> eperm")).toEqual(["search-1"]);
    expect(await ids("100%")).toEqual(["search-2"]);
    expect(await ids("%")).toEqual(["search-2"]);
    expect(await ids("_")).toEqual([]);
    // Key names of the stored JSON are not content.
    expect(await ids("axiom")).toEqual([]);
    expect(await ids("maybe")).toEqual([]);

    const item = (await list({ q: "read-only" })).body.items[0];
    expect(item).toMatchObject({
      trace_id: "search-1",
      axioms: ["Path /srv/Data is READ-ONLY"],
      axiom_count: 1,
      invalidation_count: 1,
      nodes_kept: false,
    });
    expect(item).not.toHaveProperty("nodes");
  });

  it("pages newest first without skipping or repeating rows that share a created_at millisecond", async () => {
    const ids = Array.from({ length: 23 }, (_, i) => `tie-${String(i).padStart(2, "0")}`);
    for (const id of ids)
      await post({
        trace_id: id,
        chain_id: "tie-chain",
        nodes: [node("n", "VERIFIED_CONCLUSION", `fact ${id}`, "ok")],
      });
    const db = await getDb();
    // Three groups: most rows in one millisecond, a few a millisecond either side.
    const at = Date.parse("2026-10-25T12:00:00.123Z");
    await db
      .update(traces)
      .set({ createdAt: new Date(at) })
      .where(inArray(traces.traceId, ids.slice(3, 20)));
    await db
      .update(traces)
      .set({ createdAt: new Date(at + 1) })
      .where(inArray(traces.traceId, ids.slice(0, 3)));
    await db
      .update(traces)
      .set({ createdAt: new Date(at - 1) })
      .where(inArray(traces.traceId, ids.slice(20)));

    const expected = [...ids.slice(0, 3).reverse(), ...ids.slice(3, 20).reverse(), ...ids.slice(20).reverse()];
    for (const limit of ["1", "4", "5", "17", "23", "500"]) {
      expect(await allPages({ chain_id: "tie-chain", limit })).toEqual(expected);
    }
    const first = await list({ chain_id: "tie-chain", limit: "23" });
    expect(first.body.next_cursor).toBeNull();
  });

  it("refuses a cursor it did not issue, and bad filters, with 422 invalid_query", async () => {
    const bad = [
      "nonsense",
      '["not a time","x"]',
      '["2026-02-30T00:00:00.000Z","x"]',
      '["2026-10-25T12:00:00Z","x"]',
      "[1,2,3]",
    ];
    for (const cursor of bad.map((c, i) => (i === 0 ? c : Buffer.from(c).toString("base64url")))) {
      const response = await list({ cursor });
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe("invalid_query");
    }
    expect((await list({ mismatch: "maybe" })).status).toBe(422);
    expect((await list({ limit: "501" })).status).toBe(422);
    expect(
      (await rejections({ cursor: Buffer.from('["2026-10-25T12:00:00.000Z","x"]').toString("base64url") })).status,
    ).toBe(422);
  });

  it("answers 404 in the error contract for an unknown trace", async () => {
    const response = await get("no-such-trace");
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
  });
});

describe("a chain's action space from stored traces", () => {
  it("unions axioms and walls across traces, links each to its traces, and finds the conflicts", async () => {
    await post({
      trace_id: "as-1",
      chain_id: "as-chain",
      nodes: [
        node("1", "VERIFIED_CONCLUSION", "The cache is read-only", "EROFS"),
        node("2", "FALSIFIED_PATH", "Token in query string", "HTTP 401"),
        node("3", "FALSIFIED_PATH", "Basic auth", null),
      ],
    });
    await post({
      trace_id: "as-2",
      chain_id: "as-chain",
      nodes: [
        node("1", "FALSIFIED_PATH", "the  cache is READ-ONLY", "touch exit 0"),
        node("2", "FALSIFIED_PATH", "token in query string", "HTTP 403"),
        node("3", "VERIFIED_CONCLUSION", "Bearer auth works", "HTTP 200"),
      ],
    });
    await post({
      trace_id: "as-other",
      chain_id: "another-chain",
      nodes: [node("1", "FALSIFIED_PATH", "Bearer auth works", "HTTP 500")],
    });

    const { traces: rows, truncated } = await getChainTraceConstraints("as-chain");
    expect(truncated).toBe(false);
    expect(rows.map((r) => r.trace_id)).toEqual(["as-1", "as-2"]);
    expect(rows[0]?.conclusions).toEqual([{ axiom: "The cache is read-only", proof_receipt: "EROFS" }]);
    expect(rows[0]?.omitted_falsified_paths).toBe(1);

    const space = buildActionSpace(rows);
    expect(space.axioms.map((a) => a.axiom)).toEqual(["The cache is read-only", "Bearer auth works"]);
    expect(space.forbidden.map((f) => [f.path, f.established_by.map((e) => [e.trace_id, e.receipt])])).toEqual([
      [
        "Token in query string",
        [
          ["as-1", "HTTP 401"],
          ["as-2", "HTTP 403"],
        ],
      ],
      ["the  cache is READ-ONLY", [["as-2", "touch exit 0"]]],
    ]);
    expect(space.conflicts).toEqual([
      expect.objectContaining({
        axiom: "The cache is read-only",
        axiom_trace_ids: ["as-1"],
        falsifying_trace_ids: ["as-2"],
        within_trace: false,
      }),
    ]);
  });
});
