import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readOtlpBody } from "@/lib/otlp/body";
import {
  decodeExportRequest,
  decodeExportResponse,
  encodeExportResponse,
  OtlpDecodeError,
  type OtlpEncoding,
  otlpEncodingOf,
} from "@/lib/otlp/codec";
import { receiptsFromExport } from "@/lib/otlp/receipts";
import { passReceiptSchema } from "@/lib/schemas/passes";

type Attrs = Record<string, string | number | boolean | string[]>;

/** The item at `i`, failing the test when there is none. */
function at<T>(items: readonly T[], i = 0): T {
  const item = items[i];
  if (item === undefined) throw new Error(`expected an item at ${i} of ${items.length}`);
  return item;
}

/** Real spans from the real SDK: the same objects an exporter serializes. */
function recordSpans(
  build: (tracer: ReturnType<BasicTracerProvider["getTracer"]>) => void,
  service = "agent-x",
): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  build(provider.getTracer("test"));
  return exporter.getFinishedSpans();
}

function pass(n: number, extra: Attrs = {}): Attrs {
  return {
    "floorline.chain_id": "otel-chain",
    "floorline.pass.id": `p${n}`,
    "floorline.pass.number": n,
    "floorline.pass.output_hash": `h${n}`,
    "floorline.pass.size_bytes": 4000 - n * 100,
    "floorline.pass.parseable": true,
    "floorline.pass.schema_valid": true,
    "floorline.pass.semantic_density": 0.75,
    "floorline.content_class": "api-json",
    ...extra,
  };
}

function present(body: Uint8Array | undefined): Uint8Array {
  if (!body) throw new Error("the serializer produced no body");
  return body;
}

const serializers: Record<OtlpEncoding, (spans: ReadableSpan[]) => Uint8Array> = {
  protobuf: (spans) => present(ProtobufTraceSerializer.serializeRequest(spans)),
  json: (spans) => present(JsonTraceSerializer.serializeRequest(spans)),
};

describe.each(["protobuf", "json"] as const)("OTLP %s from the official serializer", (encoding) => {
  it("decodes ids, times, every attribute kind and events", () => {
    const spans = recordSpans((tracer) => {
      const span = tracer.startSpan("compress", {
        attributes: { s: "text", b: true, i: 42, d: 0.5, arr: ["a", "b"] },
        startTime: [1_700_000_000, 0],
      });
      span.addEvent("something", { k: "v" }, [1_700_000_000, 500]);
      span.end([1_700_000_001, 123_456_789]);
    });
    const rs = at(decodeExportRequest(serializers[encoding](spans), encoding));
    expect(rs.resource.get("service.name")).toEqual({ kind: "string", value: "agent-x" });
    const span = at(rs.spans);
    expect(span.traceId).toBe(at(spans).spanContext().traceId);
    expect(span.spanId).toBe(at(spans).spanContext().spanId);
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.name).toBe("compress");
    expect(span.endTimeUnixNano).toBe(1_700_000_001_123_456_789n);
    expect(span.attributes.get("s")).toEqual({ kind: "string", value: "text" });
    expect(span.attributes.get("b")).toEqual({ kind: "bool", value: true });
    expect(span.attributes.get("i")).toEqual({ kind: "int", value: 42n });
    expect(span.attributes.get("d")).toEqual({ kind: "double", value: 0.5 });
    expect(span.attributes.get("arr")).toEqual({
      kind: "array",
      values: [
        { kind: "string", value: "a" },
        { kind: "string", value: "b" },
      ],
    });
    expect(span.events).toEqual([
      {
        name: "something",
        timeUnixNano: 1_700_000_000_000_000_500n,
        attributes: new Map([["k", { kind: "string", value: "v" }]]),
      },
    ]);
  });

  it("maps a chain of pass spans and a boundary event to receipts the /passes schema accepts", () => {
    const spans = recordSpans((tracer) => {
      for (const n of [1, 2, 3]) {
        const span = tracer.startSpan(`pass ${n}`, {
          attributes: pass(n, n === 3 ? { "floorline.pass.input_hash": "h2" } : {}),
          startTime: [1_700_000_000, 0],
        });
        if (n === 3) {
          span.addEvent("floorline.boundary", {
            "floorline.boundary.strategy": "restore",
            "floorline.boundary.reason": "pass 3 lost fields",
            "floorline.boundary.restore_pass_id": "p2",
          });
        }
        span.end([1_700_000_000 + n, 0]);
      }
      tracer.startSpan("http GET /unrelated").end();
    });
    const out = receiptsFromExport(decodeExportRequest(serializers[encoding](spans), encoding));
    expect(out.rejectedSpans).toBe(0);
    expect(out.ignoredSpans).toBe(1);
    expect(out.passes.map((p) => p.receipt.pass_id)).toEqual(["p1", "p2", "p3"]);
    expect(out.passes.every((p) => p.serviceName === "agent-x")).toBe(true);
    const third = at(out.passes, 2).receipt;
    expect(third).toEqual(
      passReceiptSchema.parse({
        chain_id: "otel-chain",
        pass_id: "p3",
        pass_number: 3,
        input_content_hash: "h2",
        current_content_hash: "h3",
        current_size_bytes: 3700,
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.75,
        content_class: "api-json",
        created_at: "2023-11-14T22:13:23.000Z",
      }),
    );
    expect(out.boundaries.map((b) => b.receipt)).toEqual([
      {
        chain_id: "otel-chain",
        pass_number: 3,
        strategy: "restore",
        reason: "pass 3 lost fields",
        restore_pass_id: "p2",
      },
    ]);
  });

  it("defaults chain and pass ids to the trace and span ids, the content class and output hash too", () => {
    const spans = recordSpans((tracer) => {
      const attributes = pass(2);
      delete attributes["floorline.chain_id"];
      delete attributes["floorline.pass.id"];
      delete attributes["floorline.content_class"];
      delete attributes["floorline.pass.output_hash"];
      tracer.startSpan("p", { attributes }).end();
    });
    const { passes } = receiptsFromExport(decodeExportRequest(serializers[encoding](spans), encoding));
    expect(at(passes).receipt).toMatchObject({
      chain_id: at(spans).spanContext().traceId,
      pass_id: at(spans).spanContext().spanId,
      content_class: "default",
      current_content_hash: "",
    });
  });

  it("rejects an invalid receipt span with a message naming its first problem, and keeps the rest", () => {
    const spans = recordSpans((tracer) => {
      tracer.startSpan("ok", { attributes: pass(1) }).end();
      tracer.startSpan("bad", { attributes: pass(2, { "floorline.pass.semantic_density": 1.5 }) }).end();
      const missing = pass(3);
      delete missing["floorline.pass.size_bytes"];
      tracer.startSpan("missing", { attributes: missing }).end();
      tracer.startSpan("wrong type", { attributes: pass(4, { "floorline.pass.parseable": "yes" }) }).end();
    });
    const out = receiptsFromExport(decodeExportRequest(serializers[encoding](spans), encoding));
    expect(out.passes.map((p) => p.receipt.pass_id)).toEqual(["p1"]);
    expect(out.rejectedSpans).toBe(3);
    expect(out.errorMessage).toMatch(/^span [0-9a-f]{16} 'bad': attribute floorline\.pass\.semantic_density: /);
    expect(out.errorMessage).toContain("(and 2 more rejected span(s))");
  });

  it("names a missing required attribute, and a bad boundary event rejects its whole span", () => {
    const spans = recordSpans((tracer) => {
      const missing = pass(3);
      delete missing["floorline.pass.size_bytes"];
      tracer.startSpan("missing", { attributes: missing }).end();
      const span = tracer.startSpan("bad boundary", { attributes: pass(4) });
      span.addEvent("floorline.boundary", {
        "floorline.boundary.strategy": "restore",
        "floorline.boundary.reason": "x",
      });
      span.end();
    });
    const out = receiptsFromExport(decodeExportRequest(serializers[encoding](spans), encoding));
    expect(out.passes).toEqual([]);
    expect(out.boundaries).toEqual([]);
    expect(out.rejectedSpans).toBe(2);
    expect(out.errorMessage).toMatch(/'missing': attribute floorline\.pass\.size_bytes is required/);
  });

  it("answers in the request's encoding, partial_success only when something was rejected", () => {
    const partial = encodeExportResponse({ rejectedSpans: 1, errorMessage: "span x: bad" }, encoding);
    expect(decodeExportResponse(partial, encoding)).toEqual({ rejectedSpans: 1, errorMessage: "span x: bad" });
    const ok = encodeExportResponse({ rejectedSpans: 0, errorMessage: "" }, encoding);
    expect(decodeExportResponse(ok, encoding)).toEqual({ rejectedSpans: 0, errorMessage: "" });
    if (encoding === "json") expect(new TextDecoder().decode(ok)).toBe("{}");
    else expect(ok.byteLength).toBe(0);
  });
});

describe("the response, read by the official client's deserializer", () => {
  it("gives the exporter our partial success", () => {
    const pb = ProtobufTraceSerializer.deserializeResponse(
      encodeExportResponse({ rejectedSpans: 2, errorMessage: "two bad" }, "protobuf"),
    );
    expect(Number(pb.partialSuccess?.rejectedSpans)).toBe(2);
    expect(pb.partialSuccess?.errorMessage).toBe("two bad");
    const json = JsonTraceSerializer.deserializeResponse(
      encodeExportResponse({ rejectedSpans: 2, errorMessage: "two bad" }, "json"),
    );
    expect(Number(json.partialSuccess?.rejectedSpans)).toBe(2);
  });
});

describe("OTLP JSON beyond what the JS SDK writes", () => {
  const body = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const request = (span: Record<string, unknown>, resource: unknown = { attributes: [] }) =>
    body({ resourceSpans: [{ resource, scopeSpans: [{ spans: [span] }] }] });

  it("takes int64 as a string or a number, snake_case names, kvlists and non-finite doubles", () => {
    const rs = at(
      decodeExportRequest(
        request({
          trace_id: "5B8EFFF798038103D269B633813FC60C",
          span_id: "EEE19B7EC3C1B174",
          end_time_unix_nano: "1700000000000000000",
          attributes: [
            { key: "a", value: { intValue: "9007199254740993" } },
            { key: "b", value: { int_value: 7 } },
            { key: "c", value: { kvlistValue: { values: [{ key: "x", value: { boolValue: false } }] } } },
            { key: "d", value: { doubleValue: "NaN" } },
            { key: "e", value: {} },
          ],
        }),
        "json",
      ),
    );
    const span = at(rs.spans);
    expect(span.traceId).toBe("5b8efff798038103d269b633813fc60c");
    expect(span.spanId).toBe("eee19b7ec3c1b174");
    expect(span.endTimeUnixNano).toBe(1_700_000_000_000_000_000n);
    expect(span.attributes.get("a")).toEqual({ kind: "int", value: 9007199254740993n });
    expect(span.attributes.get("b")).toEqual({ kind: "int", value: 7n });
    expect(span.attributes.get("c")).toEqual({
      kind: "kvlist",
      values: new Map([["x", { kind: "bool", value: false }]]),
    });
    expect(span.attributes.get("d")?.kind).toBe("double");
    expect(span.attributes.get("e")).toEqual({ kind: "empty" });
  });

  it("refuses an int beyond the safe range as a receipt field rather than rounding it", () => {
    const rs = at(
      decodeExportRequest(
        request({
          traceId: "5b8efff798038103d269b633813fc60c",
          spanId: "eee19b7ec3c1b174",
          attributes: Object.entries({ ...pass(2), "floorline.pass.size_bytes": 0 }).map(([key, v]) => ({
            key,
            value:
              key === "floorline.pass.size_bytes"
                ? { intValue: "9007199254740993" }
                : typeof v === "number"
                  ? Number.isInteger(v)
                    ? { intValue: v }
                    : { doubleValue: v }
                  : typeof v === "boolean"
                    ? { boolValue: v }
                    : { stringValue: v },
          })),
        }),
        "json",
      ),
    );
    const out = receiptsFromExport([rs]);
    expect(out.rejectedSpans).toBe(1);
    expect(out.errorMessage).toContain("floorline.pass.size_bytes");
  });

  it("refuses what is not an export request at all", () => {
    expect(() => decodeExportRequest(body([1, 2]), "json")).toThrow(OtlpDecodeError);
    expect(() => decodeExportRequest(new TextEncoder().encode("{nope"), "json")).toThrow(OtlpDecodeError);
    expect(() => decodeExportRequest(request({ traceId: "xyz" }), "json")).toThrow(/traceId must be a hex string/);
    expect(() =>
      decodeExportRequest(request({ attributes: [{ key: "a", value: { intValue: 1.5 } }] }), "json"),
    ).toThrow(/intValue must be an integer/);
    expect(() => decodeExportRequest(new Uint8Array([0x0a, 0xff, 0xff, 0xff]), "protobuf")).toThrow(OtlpDecodeError);
  });

  it("maps content types the way OTLP/HTTP does", () => {
    expect(otlpEncodingOf("application/x-protobuf")).toBe("protobuf");
    expect(otlpEncodingOf("application/json; charset=utf-8")).toBe("json");
    expect(otlpEncodingOf("text/plain")).toBeNull();
    expect(otlpEncodingOf(null)).toBeNull();
  });
});

describe("readOtlpBody", () => {
  const post = (body: Uint8Array, headers: Record<string, string>) =>
    new Request("http://x/api/v1/otlp/v1/traces", { method: "POST", body: body as Uint8Array<ArrayBuffer>, headers });

  it("reads identity and gzip bodies", async () => {
    const raw = new TextEncoder().encode('{"resourceSpans":[]}');
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    expect(text(await readOtlpBody(post(raw, {})))).toBe('{"resourceSpans":[]}');
    expect(text(await readOtlpBody(post(gzipSync(raw), { "content-encoding": "gzip" })))).toBe('{"resourceSpans":[]}');
  });

  it("stops inflating at the limit", async () => {
    const bomb = gzipSync(new Uint8Array(64 * 1024 * 1024));
    expect(bomb.byteLength).toBeLessThan(100_000);
    await expect(readOtlpBody(post(bomb, { "content-encoding": "gzip" }), 1024 * 1024)).rejects.toMatchObject({
      code: "payload_too_large",
    });
  });

  it("refuses other encodings, bodies over the limit and broken gzip", async () => {
    await expect(readOtlpBody(post(new Uint8Array(4), { "content-encoding": "br" }))).rejects.toMatchObject({
      code: "unsupported_media_type",
    });
    await expect(readOtlpBody(post(new Uint8Array(2048), {}), 1024)).rejects.toMatchObject({
      code: "payload_too_large",
    });
    await expect(
      readOtlpBody(post(new Uint8Array([1, 2, 3, 4]), { "content-encoding": "gzip" })),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/not valid gzip/) });
  });

  it("refuses an uncompressed body cut off part-way as cut off, not as broken gzip", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([0x0a, 0x02]));
        controller.error(new TypeError("terminated"));
      },
    });
    const cut = new Request("http://x/api/v1/otlp/v1/traces", { method: "POST", body, duplex: "half" } as RequestInit);
    await expect(readOtlpBody(cut)).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringMatching(/cut off/),
    });
  });
});
