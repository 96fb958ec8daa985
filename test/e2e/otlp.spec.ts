// OTLP end to end: the official OpenTelemetry exporters (http/JSON and http/protobuf), configured
// only through OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_COMPRESSION, export a chain of
// pass spans to the built app, and the chain is read back through the JSON API.
import { type DiagLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter as HttpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as HttpProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import http from "node:http";
import { expect, test } from "@playwright/test";

const EXPORTERS = { "http/json": HttpJsonExporter, "http/protobuf": HttpProtoExporter } as const;

// Warnings the exporters log, e.g. the partial success they received.
const warnings: string[] = [];
const logger: DiagLogger = {
  error: (...args) => warnings.push(args.join(" ")),
  warn: (...args) => warnings.push(args.join(" ")),
  info: () => {},
  debug: () => {},
  verbose: () => {},
};
diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });

function setup(kind: keyof typeof EXPORTERS, baseURL: string | undefined, service: string) {
  if (!baseURL) throw new Error("the Playwright config sets baseURL");
  // The documented way to point a stock exporter at Floorline: the environment, nothing else.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${baseURL}/api/v1/otlp`;
  process.env.OTEL_EXPORTER_OTLP_COMPRESSION = "gzip";
  const exporter = new EXPORTERS[kind]();
  const recorded = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: [new SimpleSpanProcessor(recorded), new BatchSpanProcessor(exporter)],
  });
  return { exporter, recorded, provider, tracer: provider.getTracer("floorline-e2e") };
}

function reexport(exporter: SpanExporter, spans: ReadableSpan[]): Promise<number> {
  return new Promise((resolve) => exporter.export(spans, (result) => resolve(result.code)));
}

function pass(chain: string, n: number, extra: Record<string, string | number | boolean> = {}) {
  return {
    "floorline.chain_id": chain,
    "floorline.pass.id": `${chain}.p${n}`,
    "floorline.pass.number": n,
    "floorline.pass.size_bytes": 2000 - n * 100,
    "floorline.pass.parseable": true,
    "floorline.pass.schema_valid": true,
    "floorline.pass.semantic_density": n === 4 ? 0.4 : 0.8,
    ...extra,
  };
}

for (const kind of Object.keys(EXPORTERS) as (keyof typeof EXPORTERS)[]) {
  test.describe(`OTLP via the ${kind} exporter`, () => {
    test("a chain of passes and a boundary, read back with the server's verdicts", async ({ request, baseURL }) => {
      const run = `${kind.replace("/", "-")}-${Date.now()}`;
      const chain = `otel-${run}`;
      const service = `e2e-agent-${run}`;
      const contentClass = `otel-${run}`.slice(0, 64);
      const put = await request.put(`/api/v1/policies/${contentClass}`, {
        data: {
          min_size_bytes: 256,
          min_semantic_density: 0.5,
          max_pass_number: 4,
          required_fields: ["order.id", "order.total"],
          format: "json",
        },
      });
      expect(put.status(), await put.text()).toBeLessThan(300);

      const { exporter, recorded, provider, tracer } = setup(kind, baseURL, service);
      const content = JSON.stringify({ order: { id: 7 }, padding: "x".repeat(1000) });
      for (const n of [1, 2, 3, 4]) {
        const attributes = pass(chain, n, { "floorline.content_class": contentClass });
        if (n === 3) {
          Object.assign(attributes, {
            "floorline.pass.content": content,
            "floorline.pass.size_bytes": Buffer.byteLength(content),
          });
        }
        const span = tracer.startSpan(`compress pass ${n}`, { attributes });
        if (n === 4) {
          span.addEvent("floorline.boundary", {
            "floorline.boundary.strategy": "halt",
            "floorline.boundary.reason": "density under the floor",
          });
        }
        span.end();
      }
      tracer.startSpan("an ordinary application span").end();
      await provider.forceFlush();

      const response = await request.get(`/api/v1/chains/${encodeURIComponent(chain)}`);
      expect(response.status(), await response.text()).toBe(200);
      const body = await response.json();
      expect(body.service_name).toBe(service);
      expect(body.passes.map((p: { pass_number: number }) => p.pass_number)).toEqual([1, 2, 3, 4]);
      expect(body.passes.map((p: { verdict: string }) => p.verdict)).toEqual([
        "NO_RECURSIVE_COMPRESSION",
        "SAFE_TO_COMPRESS",
        "SAFE_TO_COMPRESS",
        "COLLAPSE_IMMINENT",
      ]);
      const third = body.passes[2];
      expect(third.server_checks).toEqual({
        size_matches: true,
        hash_matches: null,
        parseable: true,
        schema_valid: false,
        problems: ["required field 'order.total' is missing"],
      });
      expect(third.checked_verdict).toBe("FLOOR_BREACH_DETECTED");
      expect(third.checked_mismatch).toBe(true);
      expect(body.collapse_point).toMatchObject({ pass_number: 4, verdict: "COLLAPSE_IMMINENT" });
      expect(body.boundaries).toEqual([
        expect.objectContaining({
          chain_id: chain,
          pass_number: 4,
          strategy: "halt",
          reason: "density under the floor",
        }),
      ]);

      const list = await request.get(`/api/v1/chains?service=${encodeURIComponent(service)}`);
      expect((await list.json()).items.map((c: { chain_id: string }) => c.chain_id)).toEqual([chain]);

      // An exporter's retry sends the same spans again: nothing is stored twice.
      expect(await reexport(exporter, recorded.getFinishedSpans())).toBe(ExportResultCode.SUCCESS);
      const again = await (await request.get(`/api/v1/chains/${encodeURIComponent(chain)}`)).json();
      expect(again.passes).toEqual(body.passes);
      expect(again.boundaries).toEqual(body.boundaries);
      await provider.shutdown();
    });

    test("one invalid receipt span: the rest are stored, the exporter hears of one rejected span", async ({
      request,
      baseURL,
    }) => {
      const run = `${kind.replace("/", "-")}-bad-${Date.now()}`;
      const chain = `otel-${run}`;
      const { provider, tracer } = setup(kind, baseURL, `e2e-${run}`);
      tracer.startSpan("p1", { attributes: pass(chain, 1) }).end();
      tracer.startSpan("p2", { attributes: pass(chain, 2, { "floorline.pass.semantic_density": 2 }) }).end();
      tracer.startSpan("p3", { attributes: pass(chain, 3) }).end();
      const before = warnings.length;
      await provider.forceFlush();
      const partial = warnings.slice(before).find((w) => w.includes("Partial Success"));
      expect(partial).toBeDefined();
      expect(partial).toMatch(/"rejectedSpans":"?1"?/);
      expect(partial).toContain("floorline.pass.semantic_density");

      const body = await (await request.get(`/api/v1/chains/${encodeURIComponent(chain)}`)).json();
      expect(body.passes.map((p: { pass_number: number }) => p.pass_number)).toEqual([1, 3]);
      await provider.shutdown();
    });
  });
}

test("slow uploads hold no export place: another exporter is still answered 200", async ({ baseURL }) => {
  test.setTimeout(60_000);
  if (!baseURL) throw new Error("the Playwright config sets baseURL");
  const body = '{"resourceSpans":[]}';
  const head = body.slice(0, 10);
  // More uploads under way than the server stores exports at once (4), each stuck mid-body.
  const slow = Array.from({ length: 6 }, () => {
    const request = http.request(`${baseURL}/api/v1/otlp/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(body.length) },
    });
    const status = new Promise<number>((resolve, reject) => {
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
    });
    request.write(head);
    return { request, status };
  });
  await new Promise((r) => setTimeout(r, 1_000));
  const quick = await fetch(`${baseURL}/api/v1/otlp/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  expect(quick.status, await quick.text()).toBe(200);
  for (const upload of slow) {
    upload.request.end(body.slice(head.length));
    expect(await upload.status).toBe(200);
  }
});
