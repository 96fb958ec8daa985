// OTLP spans to Floorline receipts, the OpenTelemetry way in to the same ingest. A span is a pass
// receipt when it carries `floorline.pass.number`; its `floorline.boundary` events are boundary
// receipts at that pass. Each mapped receipt goes through the same zod schemas as the JSON API,
// so a receipt is valid through OTLP exactly when it would be valid posted to /passes.
import type { z } from "zod";
import { BYTES_PER_TOKEN } from "../originals/savings";
import { type BoundaryReceipt, boundaryReceiptSchema } from "../schemas/boundaries";
import { type PassReceipt, type PassReceiptField, passReceiptSchema } from "../schemas/passes";
import type { AnyValue, Attributes, OtlpResourceSpans, OtlpSpan } from "./codec";

const PASS_NUMBER_ATTRIBUTE = "floorline.pass.number";
const BOUNDARY_EVENT = "floorline.boundary";
const SERVICE_NAME_ATTRIBUTE = "service.name";

/** Receipt field → span attribute, in the order the contract's table lists them. */
export const PASS_ATTRIBUTES = {
  chain_id: "floorline.chain_id",
  pass_id: "floorline.pass.id",
  pass_number: PASS_NUMBER_ATTRIBUTE,
  input_content_hash: "floorline.pass.input_hash",
  current_content_hash: "floorline.pass.output_hash",
  current_size_bytes: "floorline.pass.size_bytes",
  is_parseable: "floorline.pass.parseable",
  schema_valid: "floorline.pass.schema_valid",
  semantic_density_score: "floorline.pass.semantic_density",
  content_class: "floorline.content_class",
  verdict: "floorline.client.verdict",
  manifest_digest: "floorline.client.manifest_digest",
  content: "floorline.pass.content",
  cache_original: "floorline.pass.cache_original",
} as const satisfies Partial<Record<PassReceiptField, string>>;

/**
 * Receipt fields no pass attribute carries, and why. With PASS_ATTRIBUTES they name every
 * receipt field: one added to the receipt without a place here or there does not compile.
 */
const NOT_PASS_ATTRIBUTES = {
  created_at: "the span's end time is the pass's time",
  metadata: "a span's own attributes are its metadata; nothing maps them yet",
  input_content: "a chain's source is sent by the JSON API or the SDKs, not in a span",
  canaries: "planted and checked by the SDKs, which send receipts to the JSON API",
  canary_check: "planted and checked by the SDKs, which send receipts to the JSON API",
  context_tools: "a span says nothing of the tools the agent's context offered; the JSON API and the SDKs send them",
} as const;
const everyReceiptFieldPlaced: [
  Exclude<PassReceiptField, keyof typeof PASS_ATTRIBUTES | keyof typeof NOT_PASS_ATTRIBUTES>,
] extends [never]
  ? true
  : false = true;
void everyReceiptFieldPlaced;
void NOT_PASS_ATTRIBUTES;

/**
 * A GenAI compaction (docs/frameworks.md): a span with
 * `gen_ai.conversation.compacted = true` is a pass of the chain `gen_ai.conversation.id`. The
 * `floorline.compaction.*` attributes are our proposal for the GenAI conventions (docs/otlp.md).
 */
const COMPACTED_ATTRIBUTE = "gen_ai.conversation.compacted";
const CONVERSATION_ATTRIBUTE = "gen_ai.conversation.id";

const COMPACTION_ATTRIBUTES = {
  pass_number: "floorline.compaction.pass_number",
  input_bytes: "floorline.compaction.input_bytes",
  output_bytes: "floorline.compaction.output_bytes",
  input_hash: "floorline.compaction.input_hash",
  output_hash: "floorline.compaction.output_hash",
  content_class: "floorline.content_class",
  input_tokens: "gen_ai.usage.input_tokens",
  output_tokens: "gen_ai.usage.output_tokens",
} as const;

/** Claims a compaction span may make with Floorline's pass attributes; what it leaves out is defaulted. */
const COMPACTION_CLAIMS = {
  is_parseable: PASS_ATTRIBUTES.is_parseable,
  schema_valid: PASS_ATTRIBUTES.schema_valid,
  semantic_density_score: PASS_ATTRIBUTES.semantic_density_score,
  content: PASS_ATTRIBUTES.content,
  cache_original: PASS_ATTRIBUTES.cache_original,
} as const;

/**
 * What a compaction that states no claim is taken to claim: its output is text the agent went
 * on with (parseable, nothing required of it), of full density, so the guard judges it by its
 * size and its pass number alone. A policy with `density_source: "measured"` judges a span that
 * carries `floorline.pass.content` by what the server measures instead.
 */
const DEFAULT_CLAIMS = { is_parseable: true, schema_valid: true, semantic_density_score: 1 } as const;

const BOUNDARY_ATTRIBUTES = {
  strategy: "floorline.boundary.strategy",
  reason: "floorline.boundary.reason",
  restore_pass_id: "floorline.boundary.restore_pass_id",
  relaxed_policy: "floorline.boundary.relaxed_policy",
} as const;

export interface OtlpPass {
  receipt: PassReceipt;
  /**
   * A compaction span without `floorline.compaction.pass_number`: its number is the chain's
   * next in the order the spans started, given at ingest (db/ingest/otlp.ts), which sets it on
   * the receipt and on these boundaries of the same span.
   */
  unnumbered?: { startTimeUnixNano: bigint; spanId: string; boundaries: BoundaryReceipt[] };
  /** The resource's `service.name`, kept with the chain. */
  serviceName: string | null;
  /** The span, as messages name it. */
  span: string;
}

export interface OtlpBoundary {
  receipt: BoundaryReceipt;
  span: string;
}

export interface OtlpReceipts {
  passes: OtlpPass[];
  boundaries: OtlpBoundary[];
  /** Spans that are receipts (or carry boundary events) but failed validation. */
  rejectedSpans: number;
  /** The first rejected span's first problem; empty when none was rejected. */
  firstProblem: string;
  /** The partial-success message: the first problem and how many more spans were rejected. */
  errorMessage: string;
  /** Spans with nothing for Floorline (ordinary application spans). */
  ignoredSpans: number;
}

/** An attribute's value as JSON, the shape the receipt schemas read. */
function anyValueToJson(value: AnyValue): unknown {
  switch (value.kind) {
    case "string":
    case "bool":
    case "double":
      return value.value;
    // Out-of-range values stay out of range (not rounded) so the schema refuses them.
    case "int":
      return Number(value.value);
    case "bytes":
      return Buffer.from(value.value).toString("base64");
    case "array":
      return value.values.map(anyValueToJson);
    case "kvlist":
      return Object.fromEntries([...value.values].map(([k, v]) => [k, anyValueToJson(v)]));
    case "empty":
      return null;
  }
}

function nanosToRfc3339(nanos: bigint): string | undefined {
  if (nanos <= 0n) return undefined;
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

function readAttributes<K extends string>(
  attributes: Attributes,
  names: Readonly<Record<K, string>>,
): Partial<Record<K, unknown>> {
  const out: Partial<Record<K, unknown>> = {};
  for (const [field, attribute] of Object.entries(names) as [K, string][]) {
    const value = attributes.get(attribute);
    if (value !== undefined && value.kind !== "empty") out[field] = anyValueToJson(value);
  }
  return out;
}

// The relaxed floor may come as a kvlist or as a JSON string (many SDKs take only scalars).
function relaxedPolicy(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function spanLabel(span: OtlpSpan): string {
  return `span ${span.spanId || "(no id)"}${span.name ? ` '${span.name}'` : ""}`;
}

function firstProblem(
  error: z.ZodError,
  names: Readonly<Record<string, string>>,
  given: Record<string, unknown>,
  what: string,
): string {
  const issue = error.issues[0];
  if (!issue) return `${what}: not a valid receipt`;
  const field = String(issue.path[0] ?? "");
  const attribute = names[field];
  if (attribute && given[field] === undefined) return `${what}: attribute ${attribute} is required`;
  const where = attribute ? `attribute ${attribute}` : field || "receipt";
  const rest = issue.path.slice(1).map(String).join(".");
  return `${what}: ${where}${rest ? `.${rest}` : ""}: ${issue.message}`;
}

type SpanOutcome =
  | { kind: "ignored" }
  | { kind: "rejected"; message: string }
  | { kind: "receipt"; pass: OtlpPass; boundaries: OtlpBoundary[] };

function isCompaction(span: OtlpSpan): boolean {
  const compacted = span.attributes.get(COMPACTED_ATTRIBUTE);
  return compacted?.kind === "bool" && compacted.value;
}

/** A compaction span's receipt as the JSON API would take it, before validation. */
function compactionReceipt(span: OtlpSpan): { raw: Record<string, unknown> } | { problem: string } {
  const given = readAttributes(span.attributes, COMPACTION_ATTRIBUTES);
  const claims = readAttributes(span.attributes, COMPACTION_CLAIMS);
  const conversation = span.attributes.get(CONVERSATION_ATTRIBUTE);
  if (conversation === undefined || conversation.kind === "empty") {
    return {
      problem: `${spanLabel(span)}: a ${COMPACTED_ATTRIBUTE} span needs the attribute ${CONVERSATION_ATTRIBUTE}`,
    };
  }
  const tokens = (n: unknown) => (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined);
  let size = given.output_bytes;
  let sizeFrom: string = COMPACTION_ATTRIBUTES.output_bytes;
  if (size === undefined && tokens(given.output_tokens) !== undefined) {
    // Token counts are estimated as bytes the way the originals' savings are (4 a token), and flagged.
    size = (tokens(given.output_tokens) as number) * BYTES_PER_TOKEN;
    sizeFrom = COMPACTION_ATTRIBUTES.output_tokens;
  }
  if (size === undefined) {
    return {
      problem: `${spanLabel(span)}: a ${COMPACTED_ATTRIBUTE} span needs ${COMPACTION_ATTRIBUTES.output_bytes} or ${COMPACTION_ATTRIBUTES.output_tokens}`,
    };
  }
  const inputBytes =
    given.input_bytes ??
    (tokens(given.input_tokens) === undefined ? undefined : (tokens(given.input_tokens) as number) * BYTES_PER_TOKEN);
  const defaulted = Object.keys(DEFAULT_CLAIMS).filter((k) => claims[k as keyof typeof claims] === undefined);
  const metadata: Record<string, unknown> = { [COMPACTED_ATTRIBUTE]: true, size_from: sizeFrom };
  if (inputBytes !== undefined) metadata.input_size_bytes = inputBytes;
  if (given.input_tokens !== undefined) metadata.input_tokens = given.input_tokens;
  if (given.output_tokens !== undefined) metadata.output_tokens = given.output_tokens;
  if (defaulted.length > 0) metadata.claims_defaulted = defaulted;
  return {
    raw: {
      ...DEFAULT_CLAIMS,
      ...claims,
      chain_id: anyValueToJson(conversation),
      pass_id: span.spanId,
      // Validated with a stand-in when unnumbered; the real number is given at ingest.
      pass_number: given.pass_number ?? 1,
      input_content_hash: given.input_hash,
      current_content_hash: given.output_hash ?? "",
      current_size_bytes: size,
      content_class: given.content_class,
      created_at: nanosToRfc3339(span.endTimeUnixNano),
      metadata,
    },
  };
}

/** Receipt field → the attribute a compaction span gives it, for naming problems. */
const COMPACTION_FIELD_ATTRIBUTES: Readonly<Record<string, string>> = {
  chain_id: CONVERSATION_ATTRIBUTE,
  pass_number: COMPACTION_ATTRIBUTES.pass_number,
  input_content_hash: COMPACTION_ATTRIBUTES.input_hash,
  current_content_hash: COMPACTION_ATTRIBUTES.output_hash,
  current_size_bytes: COMPACTION_ATTRIBUTES.output_bytes,
  content_class: COMPACTION_ATTRIBUTES.content_class,
  ...COMPACTION_CLAIMS,
};

function mapSpan(span: OtlpSpan, serviceName: string | null): SpanOutcome {
  const boundaryEvents = span.events.filter((e) => e.name === BOUNDARY_EVENT);
  if (!span.attributes.has(PASS_NUMBER_ATTRIBUTE) && isCompaction(span))
    return mapCompaction(span, serviceName, boundaryEvents);
  if (!span.attributes.has(PASS_NUMBER_ATTRIBUTE)) {
    if (boundaryEvents.length === 0) return { kind: "ignored" };
    return {
      kind: "rejected",
      message: `${spanLabel(span)}: a ${BOUNDARY_EVENT} event needs the span's ${PASS_NUMBER_ATTRIBUTE} attribute`,
    };
  }
  const given: Record<string, unknown> = readAttributes(span.attributes, PASS_ATTRIBUTES);
  const raw = {
    chain_id: span.traceId,
    pass_id: span.spanId,
    current_content_hash: "",
    created_at: nanosToRfc3339(span.endTimeUnixNano),
    ...given,
  };
  const parsed = passReceiptSchema.safeParse(raw);
  if (!parsed.success) {
    return { kind: "rejected", message: firstProblem(parsed.error, PASS_ATTRIBUTES, raw, spanLabel(span)) };
  }
  const receipt = parsed.data;
  const boundaries = boundariesOf(span, boundaryEvents, receipt);
  if (typeof boundaries === "string") return { kind: "rejected", message: boundaries };
  return { kind: "receipt", pass: { receipt, serviceName, span: spanLabel(span) }, boundaries };
}

/** The span's boundary events as receipts at its pass, or the first one's problem. */
function boundariesOf(span: OtlpSpan, events: OtlpSpan["events"], receipt: PassReceipt): OtlpBoundary[] | string {
  const boundaries: OtlpBoundary[] = [];
  for (const event of events) {
    const fields = readAttributes(event.attributes, BOUNDARY_ATTRIBUTES);
    if (fields.relaxed_policy !== undefined) fields.relaxed_policy = relaxedPolicy(fields.relaxed_policy);
    const candidate = { ...fields, chain_id: receipt.chain_id, pass_number: receipt.pass_number };
    const boundary = boundaryReceiptSchema.safeParse(candidate);
    if (!boundary.success) {
      const what = `${spanLabel(span)}, event ${BOUNDARY_EVENT}`;
      return firstProblem(boundary.error, BOUNDARY_ATTRIBUTES, candidate, what);
    }
    boundaries.push({ receipt: boundary.data, span: spanLabel(span) });
  }
  return boundaries;
}

function mapCompaction(span: OtlpSpan, serviceName: string | null, events: OtlpSpan["events"]): SpanOutcome {
  const mapped = compactionReceipt(span);
  if ("problem" in mapped) return { kind: "rejected", message: mapped.problem };
  const parsed = passReceiptSchema.safeParse(mapped.raw);
  if (!parsed.success) {
    return {
      kind: "rejected",
      message: firstProblem(parsed.error, COMPACTION_FIELD_ATTRIBUTES, mapped.raw, spanLabel(span)),
    };
  }
  const receipt = parsed.data;
  const boundaries = boundariesOf(span, events, receipt);
  if (typeof boundaries === "string") return { kind: "rejected", message: boundaries };
  const pass: OtlpPass = { receipt, serviceName, span: spanLabel(span) };
  if (!span.attributes.has(COMPACTION_ATTRIBUTES.pass_number)) {
    pass.unnumbered = {
      startTimeUnixNano: span.startTimeUnixNano,
      spanId: span.spanId,
      boundaries: boundaries.map((b) => b.receipt),
    };
  }
  return { kind: "receipt", pass, boundaries };
}

/**
 * Every receipt in an export. A rejected span contributes nothing (neither its pass nor its
 * boundaries), so what is stored never depends on which half of a span happened to be valid.
 */
export function receiptsFromExport(resourceSpans: OtlpResourceSpans[]): OtlpReceipts {
  const out: OtlpReceipts = {
    passes: [],
    boundaries: [],
    rejectedSpans: 0,
    firstProblem: "",
    errorMessage: "",
    ignoredSpans: 0,
  };
  for (const rs of resourceSpans) {
    const service = rs.resource.get(SERVICE_NAME_ATTRIBUTE);
    const serviceName = service?.kind === "string" && service.value !== "" ? service.value : null;
    for (const span of rs.spans) {
      const outcome = mapSpan(span, serviceName);
      if (outcome.kind === "ignored") out.ignoredSpans++;
      else if (outcome.kind === "rejected") {
        out.rejectedSpans++;
        if (out.firstProblem === "") out.firstProblem = outcome.message;
      } else {
        out.passes.push(outcome.pass);
        out.boundaries.push(...outcome.boundaries);
      }
    }
  }
  out.errorMessage = partialSuccessMessage(out.firstProblem, out.rejectedSpans);
  return out;
}

export function partialSuccessMessage(firstProblem: string, rejectedSpans: number): string {
  if (rejectedSpans === 0) return "";
  return rejectedSpans === 1 ? firstProblem : `${firstProblem} (and ${rejectedSpans - 1} more rejected span(s))`;
}
