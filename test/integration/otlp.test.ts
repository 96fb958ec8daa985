// POST /api/v1/otlp/v1/traces through the real handler and database: both encodings (built by
// the official serializers), gzip, partial success, idempotent retries, service.name per
// chain, and the refusals (content type, encoding, size, garbage).
import { gzipSync } from "node:zlib";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { listChainServices } from "@/db/queries/chains";
import { GET as otlpGet, POST as otlpPost } from "@/app/api/v1/otlp/v1/traces/route";
import { evaluatePass } from "@/lib/guard/guard";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import { decodeExportResponse, type OtlpEncoding } from "@/lib/otlp/codec";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, countRows, expectError } from "./api-helpers";

setUpTestDatabase();

type Attrs = Record<string, string | number | boolean>;

function spansOf(service: string, build: (tracer: ReturnType<BasicTracerProvider["getTracer"]>) => void) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  build(provider.getTracer("it"));
  return exporter.getFinishedSpans();
}

function pass(chain: string, n: number, extra: Attrs = {}): Attrs {
  return {
    "floorline.chain_id": chain,
    "floorline.pass.id": `${chain}.p${n}`,
    "floorline.pass.number": n,
    "floorline.pass.size_bytes": 3000 - n * 400,
    "floorline.pass.parseable": true,
    "floorline.pass.schema_valid": true,
    "floorline.pass.semantic_density": 0.9 - n * 0.1,
    ...extra,
  };
}

function body(spans: ReadableSpan[], encoding: OtlpEncoding): Uint8Array {
  const bytes =
    encoding === "protobuf"
      ? ProtobufTraceSerializer.serializeRequest(spans)
      : JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error("no body");
  return bytes;
}

async function exportSpans(bytes: Uint8Array, encoding: OtlpEncoding, headers: Record<string, string> = {}) {
  const request = new Request("http://localhost/api/v1/otlp/v1/traces", {
    method: "POST",
    body: bytes as Uint8Array<ArrayBuffer>,
    headers: {
      "content-type": encoding === "protobuf" ? "application/x-protobuf" : "application/json",
      ...headers,
    },
  });
  const response = await otlpPost(request, { params: Promise.resolve({}) });
  const raw = new Uint8Array(await response.arrayBuffer());
  return { response, raw, result: response.status === 200 ? decodeExportResponse(raw, encoding) : null };
}

const chain = (chainId: string) =>
  call(getChain, jsonRequest(`/api/v1/chains/${encodeURIComponent(chainId)}`), params({ chain_id: chainId }));

describe.each(["protobuf", "json"] as const)("OTLP %s", (encoding) => {
  it("stores a chain of pass spans with the server's verdicts, a boundary and the service name", async () => {
    const id = `otlp-${encoding}-chain`;
    const spans = spansOf(`agent-${encoding}`, (tracer) => {
      for (const n of [1, 2, 3, 4, 5]) {
        const span = tracer.startSpan(`pass ${n}`, { attributes: pass(id, n) });
        if (n === 5) {
          span.addEvent("floorline.boundary", {
            "floorline.boundary.strategy": "halt",
            "floorline.boundary.reason": "past the pass limit",
          });
        }
        span.end();
      }
      tracer.startSpan("GET /unrelated").end();
    });
    const { response, result } = await exportSpans(gzipSync(body(spans, encoding)), encoding, {
      "content-encoding": "gzip",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(
      encoding === "protobuf" ? "application/x-protobuf" : "application/json",
    );
    expect(result).toEqual({ rejectedSpans: 0, errorMessage: "" });

    const stored = await chain(id);
    expect(stored.status).toBe(200);
    expect(stored.body.service_name).toBe(`agent-${encoding}`);
    const expected = [1, 2, 3, 4, 5].map((n) => {
      const a = pass(id, n);
      return evaluatePass(
        {
          pass_id: `${id}.p${n}`,
          pass_number: n,
          current_content_hash: "",
          current_size_bytes: a["floorline.pass.size_bytes"] as number,
          is_parseable: true,
          schema_valid: true,
          semantic_density_score: a["floorline.pass.semantic_density"] as number,
        },
        CONSERVATIVE_DEFAULT_POLICY,
      );
    });
    expect(stored.body.passes.map((p: { verdict: string }) => p.verdict)).toEqual(expected.map((e) => e.verdict));
    expect(stored.body.passes.map((p: { manifest_digest: string }) => p.manifest_digest)).toEqual(
      expected.map((e) => e.manifest_digest),
    );
    expect(stored.body.boundaries).toEqual([
      expect.objectContaining({ pass_number: 5, strategy: "halt", reason: "past the pass limit" }),
    ]);
    // The span's end time is the receipt's created_at.
    expect(Date.parse(stored.body.passes[0].created_at)).toBe(
      Math.floor((spans[0]?.endTime[0] ?? 0) * 1000 + (spans[0]?.endTime[1] ?? 0) / 1e6),
    );

    const byService = await call(listChains, jsonRequest(`/api/v1/chains?service=agent-${encoding}`));
    expect(byService.body.items.map((c: { chain_id: string }) => c.chain_id)).toEqual([id]);
    expect(byService.body.items[0].service_name).toBe(`agent-${encoding}`);
    // The chains page's service filter offers it.
    expect(await listChainServices()).toContain(`agent-${encoding}`);
  });

  it("stores the valid spans of a batch with one invalid span and reports it", async () => {
    const id = `otlp-${encoding}-partial`;
    const spans = spansOf("agent-partial", (tracer) => {
      tracer.startSpan("p1", { attributes: pass(id, 1) }).end();
      tracer.startSpan("p2", { attributes: pass(id, 2, { "floorline.pass.semantic_density": 7 }) }).end();
      tracer.startSpan("p3", { attributes: pass(id, 3) }).end();
    });
    const { result } = await exportSpans(body(spans, encoding), encoding);
    expect(result?.rejectedSpans).toBe(1);
    expect(result?.errorMessage).toMatch(/^span [0-9a-f]{16} 'p2': attribute floorline\.pass\.semantic_density: /);
    const stored = await chain(id);
    expect(stored.body.passes.map((p: { pass_number: number }) => p.pass_number)).toEqual([1, 3]);
  });

  it("a retried export writes nothing twice; a changed receipt under a stored key is one rejected span", async () => {
    const id = `otlp-${encoding}-retry`;
    const spans = spansOf("agent-retry", (tracer) => {
      for (const n of [1, 2]) tracer.startSpan(`p${n}`, { attributes: pass(id, n) }).end();
    });
    const bytes = body(spans, encoding);
    expect((await exportSpans(bytes, encoding)).result?.rejectedSpans).toBe(0);
    const before = await countRows();
    const first = await chain(id);
    expect((await exportSpans(bytes, encoding)).result).toEqual({ rejectedSpans: 0, errorMessage: "" });
    expect(await countRows()).toEqual(before);
    expect((await chain(id)).body).toEqual(first.body);

    const changed = spansOf("agent-retry", (tracer) => {
      tracer.startSpan("p2 again", { attributes: pass(id, 2, { "floorline.pass.size_bytes": 1 }) }).end();
      tracer.startSpan("p3", { attributes: pass(id, 3) }).end();
    });
    const { result } = await exportSpans(body(changed, encoding), encoding);
    expect(result?.rejectedSpans).toBe(1);
    expect(result?.errorMessage).toMatch(/'p2 again': .*different body/);
    expect((await chain(id)).body.passes.map((p: { pass_number: number }) => p.pass_number)).toEqual([1, 2, 3]);
  });
});

describe("OTLP content checks", () => {
  it("checks floorline.pass.content against the policy like a JSON receipt", async () => {
    const content = JSON.stringify({ id: 1, rows: [{ a: 1 }, {}] });
    const spans = spansOf("agent-content", (tracer) =>
      tracer
        .startSpan("p2", {
          attributes: pass("otlp-content", 2, {
            "floorline.pass.content": content,
            "floorline.pass.size_bytes": Buffer.byteLength(content) + 1,
          }),
        })
        .end(),
    );
    expect((await exportSpans(body(spans, "protobuf"), "protobuf")).result?.rejectedSpans).toBe(0);
    const stored = await chain("otlp-content");
    expect(stored.body.passes[0].server_checks).toMatchObject({ size_matches: false, parseable: true });
    expect(stored.body.passes[0].checked_mismatch).toBe(true);
  });
});

describe("refusals", () => {
  const empty = new TextEncoder().encode("{}");

  it("answers an empty export with a full success", async () => {
    const { response, result } = await exportSpans(empty, "json");
    expect(response.status).toBe(200);
    expect(result).toEqual({ rejectedSpans: 0, errorMessage: "" });
  });

  it("415 for other content types and encodings, 400 for garbage, 413 past the limit, 405 for GET", async () => {
    const before = await countRows();
    const other = await call(
      otlpPost,
      new Request("http://localhost/api/v1/otlp/v1/traces", {
        method: "POST",
        body: "x",
        headers: { "content-type": "text/plain" },
      }),
    );
    expectError(other, 415, "unsupported_media_type");
    const brotli = await exportSpans(empty, "json", { "content-encoding": "br" });
    expect(brotli.response.status).toBe(415);
    const garbage = await exportSpans(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f]), "protobuf");
    expect(garbage.response.status).toBe(400);
    const notJson = await exportSpans(new TextEncoder().encode("{oops"), "json");
    expect(notJson.response.status).toBe(400);
    const brokenGzip = await exportSpans(new Uint8Array([1, 2, 3]), "json", { "content-encoding": "gzip" });
    expect(brokenGzip.response.status).toBe(400);
    const bomb = await exportSpans(gzipSync(new Uint8Array(11 * 1024 * 1024)), "protobuf", {
      "content-encoding": "gzip",
    });
    expect(bomb.response.status).toBe(413);
    const get = await call(otlpGet, jsonRequest("/api/v1/otlp/v1/traces"));
    expectError(get, 405, "method_not_allowed");
    expect(await countRows()).toEqual(before);
  });
});

describe("OTLP values nested deeply", () => {
  const arrays = (depth: number) =>
    `${'{"arrayValue":{"values":['.repeat(depth)}{"stringValue":"x"}${"]}}".repeat(depth)}`;
  const kvlists = (depth: number) =>
    `${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth)}{"stringValue":"x"}${"}]}}".repeat(depth)}`;
  const request = (value: string) =>
    new TextEncoder().encode(
      `{"resourceSpans":[{"resource":{"attributes":[{"key":"deep","value":${value}}]},"scopeSpans":[]}]}`,
    );

  // Protobuf bytes built by hand, innermost first: a recursive encoder would overflow too.
  function varint(n: number): number[] {
    const out: number[] = [];
    for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
    out.push(n);
    return out;
  }
  // Each level is a prefix (tag, length) before the bytes inside it, so the body is the
  // prefixes outermost first, then the innermost value: linear to build.
  function protobufArrays(depth: number): Uint8Array {
    const inner = [0x0a, 0x01, 0x78]; // AnyValue { string_value: "x" }
    const prefixes: number[][] = [];
    let length = inner.length;
    const wrap = (tag: number) => {
      const prefix = [tag, ...varint(length)];
      prefixes.push(prefix);
      length += prefix.length;
    };
    for (let i = 0; i < depth; i++) {
      wrap(0x0a); // ArrayValue { values }
      wrap(0x2a); // AnyValue { array_value }
    }
    wrap(0x12); // KeyValue { value }
    prefixes.push([0x0a, 0x01, 0x6b]); // KeyValue { key: "k" }: lies before the value field
    length += 3;
    wrap(0x0a); // Resource { attributes }
    wrap(0x0a); // ResourceSpans { resource }
    wrap(0x0a); // request { resource_spans }
    return new Uint8Array([...prefixes.reverse().flat(), ...inner]);
  }

  it.each([
    ["arrayValue, just past the JSON reader's depth", request(arrays(70))],
    ["arrayValue, deep enough to overflow a recursive walk", request(arrays(20_000))],
    ["kvlistValue, deep enough to overflow a recursive walk", request(kvlists(20_000))],
  ])("JSON %s is a 400 in the contract's shape", async (_, bytes) => {
    const { response, raw } = await exportSpans(bytes, "json");
    const answer = { status: response.status, headers: response.headers, text: "", body: undefined as unknown };
    answer.text = new TextDecoder().decode(raw);
    answer.body = JSON.parse(answer.text);
    expect(expectError(answer as never, 400, "invalid_body").message).toMatch(/nested/);
  });

  it("the hand-built protobuf is a valid request when shallow", async () => {
    const { response } = await exportSpans(protobufArrays(3), "protobuf");
    expect(response.status).toBe(200);
  });

  it.each([70, 20_000])("protobuf arrayValue nested %i deep is a 400", async (depth) => {
    const { response, raw } = await exportSpans(protobufArrays(depth), "protobuf");
    const text = new TextDecoder().decode(raw);
    expect(response.status, text.slice(0, 300)).toBe(400);
    expect(JSON.parse(text).error.code).toBe("invalid_body");
  });
});
