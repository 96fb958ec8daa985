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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppOnOwnDatabase } from "../support/app-server";

const START_TIMEOUT = 300_000;
const EXPORTERS = { "http/protobuf": HttpProtoExporter, "http/json": HttpJsonExporter } as const;

let app: AppServer;
let stopApp: () => Promise<void>;
const warnings: string[] = [];
const logger: DiagLogger = {
  error: (...args) => warnings.push(args.join(" ")),
  warn: (...args) => warnings.push(args.join(" ")),
  info: () => {},
  debug: () => {},
  verbose: () => {},
};

beforeAll(async () => {
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  ({ app, stop: stopApp } = await startAppOnOwnDatabase("otlp-compaction", {}, START_TIMEOUT));
}, START_TIMEOUT);

afterAll(async () => {
  diag.disable();
  await stopApp?.();
}, 60_000);

function setup(kind: keyof typeof EXPORTERS) {
  const exporter = new EXPORTERS[kind]({ url: `${app.base}/api/v1/otlp/v1/traces`, headers: {} });
  const recorded = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "compacting-agent" }),
    spanProcessors: [new SimpleSpanProcessor(recorded), new BatchSpanProcessor(exporter)],
  });
  return { exporter, recorded, provider, tracer: provider.getTracer("compaction") };
}

function reexport(exporter: SpanExporter, spans: ReadableSpan[]): Promise<number> {
  return new Promise((resolve) => exporter.export(spans, (result) => resolve(result.code)));
}

type StoredPass = {
  pass_id: string;
  pass_number: number;
  current_size_bytes: number;
  input_content_hash: string | null;
  current_content_hash: string;
  content_class: string;
  metadata: Record<string, unknown> | null;
};
async function chain(id: string): Promise<{ status: number; passes: StoredPass[]; service_name?: string }> {
  const response = await fetch(`${app.base}/api/v1/chains/${encodeURIComponent(id)}`);
  const body = (await response.json()) as { passes: StoredPass[]; service_name?: string };
  return { status: response.status, ...body };
}

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

for (const kind of Object.keys(EXPORTERS) as (keyof typeof EXPORTERS)[]) {
  describe(`GenAI compaction spans via the ${kind} exporter`, () => {
    it("are passes of the conversation's chain, numbered in start order, sized from gen_ai.usage", async () => {
      const conversation = `conv-${kind.replace("/", "-")}`;
      const { exporter, recorded, provider, tracer } = setup(kind);
      // Started A, B, C; ended B, C, A: the export's order is not the start order.
      const spanAt = (name: string, start: number, end: number, outputTokens: number) => {
        const span = tracer.startSpan(name, {
          startTime: T0 + start,
          attributes: {
            "gen_ai.operation.name": "compact",
            "gen_ai.conversation.id": conversation,
            "gen_ai.conversation.compacted": true,
            "gen_ai.usage.input_tokens": outputTokens * 3,
            "gen_ai.usage.output_tokens": outputTokens,
          },
        });
        return () => span.end(T0 + end);
      };
      const endA = spanAt("compact A", 0, 300, 900);
      const endB = spanAt("compact B", 100, 200, 400);
      const endC = spanAt("compact C", 150, 250, 150);
      tracer.startSpan("chat", { attributes: { "gen_ai.conversation.id": conversation } }).end();
      endB();
      endC();
      endA();
      await provider.forceFlush();

      const stored = await chain(conversation);
      expect(stored.status).toBe(200);
      expect(stored.service_name).toBe("compacting-agent");
      const spans = recorded.getFinishedSpans().filter((s) => s.name.startsWith("compact "));
      const idOf = (name: string) => spans.find((s) => s.name === name)?.spanContext().spanId;
      expect(stored.passes.map((p) => [p.pass_number, p.pass_id])).toEqual([
        [1, idOf("compact A")],
        [2, idOf("compact B")],
        [3, idOf("compact C")],
      ]);
      expect(stored.passes.map((p) => p.current_size_bytes)).toEqual([3600, 1600, 600]);
      expect(stored.passes[0]?.metadata).toMatchObject({
        "gen_ai.conversation.compacted": true,
        size_from: "gen_ai.usage.output_tokens",
        input_tokens: 2700,
        output_tokens: 900,
        input_size_bytes: 10800,
      });

      // The exporter's retry of the same spans: the same passes, nothing added, renumbered or
      // refused (a renumbered span would be a key stored with another body: a rejected span).
      const before = warnings.length;
      expect(await reexport(exporter, spans)).toBe(ExportResultCode.SUCCESS);
      expect(warnings.slice(before).filter((w) => w.includes("Partial Success"))).toEqual([]);
      const again = await chain(conversation);
      expect(again.passes).toEqual(stored.passes);

      // A later compaction of the conversation continues the chain.
      spanAt("compact D", 1000, 1100, 100)();
      await provider.forceFlush();
      expect((await chain(conversation)).passes.map((p) => p.pass_number)).toEqual([1, 2, 3, 4]);
      await provider.shutdown();
    });

    it("reads Floorline's compaction attributes when present", async () => {
      const conversation = `conv-attrs-${kind.replace("/", "-")}`;
      const { provider, tracer } = setup(kind);
      tracer
        .startSpan("compact", {
          attributes: {
            "gen_ai.conversation.id": conversation,
            "gen_ai.conversation.compacted": true,
            "gen_ai.usage.output_tokens": 10,
            "floorline.compaction.pass_number": 7,
            "floorline.compaction.input_bytes": 52000,
            "floorline.compaction.output_bytes": 4100,
            "floorline.compaction.input_hash": "a".repeat(64),
            "floorline.compaction.output_hash": "b".repeat(64),
            "floorline.content_class": "history",
          },
        })
        .end();
      await provider.forceFlush();
      const [pass] = (await chain(conversation)).passes;
      expect(pass).toMatchObject({
        pass_number: 7,
        current_size_bytes: 4100,
        input_content_hash: "a".repeat(64),
        current_content_hash: "b".repeat(64),
        content_class: "history",
      });
      expect(pass?.metadata).toMatchObject({ size_from: "floorline.compaction.output_bytes", input_size_bytes: 52000 });
      await provider.shutdown();
    });

    it("rejects compaction spans it cannot map, as partial success, and stores the rest", async () => {
      const conversation = `conv-bad-${kind.replace("/", "-")}`;
      const { provider, tracer } = setup(kind);
      const attrs = { "gen_ai.conversation.compacted": true, "gen_ai.usage.output_tokens": 300 };
      tracer.startSpan("no conversation", { startTime: T0, attributes: attrs }).end(T0 + 10);
      tracer
        .startSpan("no size", {
          startTime: T0 + 20,
          attributes: { "gen_ai.conversation.id": conversation, "gen_ai.conversation.compacted": true },
        })
        .end(T0 + 30);
      tracer
        .startSpan("good", { startTime: T0 + 40, attributes: { ...attrs, "gen_ai.conversation.id": conversation } })
        .end(T0 + 50);
      const before = warnings.length;
      await provider.forceFlush();
      const partial = warnings.slice(before).find((w) => w.includes("Partial Success"));
      expect(partial).toBeDefined();
      expect(partial).toMatch(/"rejectedSpans":"?2"?/);
      expect(partial).toContain("gen_ai.conversation.id");
      expect((await chain(conversation)).passes.map((p) => [p.pass_number, p.current_size_bytes])).toEqual([[1, 1200]]);
      await provider.shutdown();
    });
  });
}
