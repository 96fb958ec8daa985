// OTLP/HTTP trace export, both encodings, decoded into one plain model: the binary protobuf
// (via protobufjs and our copy of the official message definitions) and the OTLP JSON mapping
// (lowerCamelCase names, hex trace and span ids, 64-bit integers as strings or numbers).
// Everything downstream reads only the model, so the two encodings cannot drift apart.
import protobuf from "protobufjs";
import { MAX_JSON_DEPTH } from "../schemas/common";
import { OTLP_TRACE_PROTO_FILES } from "./proto/trace-service";

export type AnyValue =
  | { kind: "string"; value: string }
  | { kind: "bool"; value: boolean }
  | { kind: "int"; value: bigint }
  | { kind: "double"; value: number }
  | { kind: "bytes"; value: Uint8Array }
  | { kind: "array"; values: AnyValue[] }
  | { kind: "kvlist"; values: Attributes }
  | { kind: "empty" };

export type Attributes = Map<string, AnyValue>;

interface OtlpEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: Attributes;
}

export interface OtlpSpan {
  /** Lowercase hex, as trace ids are written everywhere else (32 characters when valid). */
  traceId: string;
  spanId: string;
  name: string;
  /** Compaction spans are numbered in the order they started (lib/otlp/receipts.ts). */
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: OtlpEvent[];
}

export interface OtlpResourceSpans {
  resource: Attributes;
  spans: OtlpSpan[];
}

export type OtlpEncoding = "protobuf" | "json";

/** A request that is not an ExportTraceServiceRequest at all: the whole export is refused. */
// AnyValues nest (arrays, key-value lists) as deep as the sender likes; each level here is a
// stack frame, so they are held to the JSON reader's depth and refused past it, not overflowed.
const MAX_VALUE_DEPTH = MAX_JSON_DEPTH;
const NESTED_TOO_DEEP = `attribute values must be nested at most ${MAX_JSON_DEPTH} levels deep`;

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OtlpDecodeError";
  }
}

const root = new protobuf.Root();
for (const source of OTLP_TRACE_PROTO_FILES) protobuf.parse(source, root, { keepCase: false });
root.resolveAll();
const requestType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
const responseType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");

/** The contentType → encoding mapping of OTLP/HTTP; null for anything else (415). */
export function otlpEncodingOf(contentType: string | null): OtlpEncoding | null {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return null;
}

export function decodeExportRequest(body: Uint8Array, encoding: OtlpEncoding): OtlpResourceSpans[] {
  return encoding === "protobuf" ? decodeProtobuf(body) : decodeJson(body);
}

// ---------- protobuf ----------

type Message = Record<string, unknown>;

function decodeProtobuf(body: Uint8Array): OtlpResourceSpans[] {
  let message: Message;
  try {
    message = requestType.decode(body) as unknown as Message;
  } catch (error) {
    throw new OtlpDecodeError(`The body is not a protobuf ExportTraceServiceRequest: ${(error as Error).message}.`);
  }
  return list(message.resourceSpans).map((rs) => ({
    resource: pbAttributes((rs.resource as Message | undefined)?.attributes),
    spans: list(rs.scopeSpans).flatMap((ss) =>
      list(ss.spans).map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        name: typeof span.name === "string" ? span.name : "",
        startTimeUnixNano: pbLong(span.startTimeUnixNano),
        endTimeUnixNano: pbLong(span.endTimeUnixNano),
        attributes: pbAttributes(span.attributes),
        events: list(span.events).map((event) => ({
          name: typeof event.name === "string" ? event.name : "",
          timeUnixNano: pbLong(event.timeUnixNano),
          attributes: pbAttributes(event.attributes),
        })),
      })),
    ),
  }));
}

function list(value: unknown): Message[] {
  return Array.isArray(value) ? (value as Message[]) : [];
}

function hex(bytes: unknown): string {
  return bytes instanceof Uint8Array
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")
    : "";
}

// protobufjs hands 64-bit fields back as Long objects (or numbers when they fit); both print
// their exact decimal value.
function pbLong(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  return BigInt(String(value));
}

function pbAttributes(value: unknown, depth = 0): Attributes {
  const attributes: Attributes = new Map();
  for (const kv of list(value)) {
    if (typeof kv.key === "string") attributes.set(kv.key, pbAnyValue(kv.value as Message | undefined, depth));
  }
  return attributes;
}

function pbAnyValue(value: Message | undefined, depth: number): AnyValue {
  if (depth >= MAX_VALUE_DEPTH) throw new OtlpDecodeError(NESTED_TOO_DEEP);
  switch (value?.value) {
    case "stringValue":
      return { kind: "string", value: value.stringValue as string };
    case "boolValue":
      return { kind: "bool", value: value.boolValue as boolean };
    case "intValue":
      return { kind: "int", value: pbLong(value.intValue) };
    case "doubleValue":
      return { kind: "double", value: value.doubleValue as number };
    case "bytesValue":
      return { kind: "bytes", value: value.bytesValue as Uint8Array };
    case "arrayValue":
      return {
        kind: "array",
        values: list((value.arrayValue as Message).values).map((v) => pbAnyValue(v, depth + 1)),
      };
    case "kvlistValue":
      return { kind: "kvlist", values: pbAttributes((value.kvlistValue as Message).values, depth + 1) };
    default:
      return { kind: "empty" };
  }
}

// ---------- JSON ----------

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON mapping names fields in lowerCamelCase; proto3 JSON parsers also accept the proto names. */
function field(object: Record<string, unknown>, camel: string): unknown {
  if (camel in object) return object[camel];
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return object[snake];
}

function jsonList(object: Record<string, unknown>, camel: string, path: string): Record<string, unknown>[] {
  const value = field(object, camel);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${path}.${camel} must be an array.`);
  return value.map((item, i) => {
    if (!isObject(item)) throw new OtlpDecodeError(`${path}.${camel}[${i}] must be an object.`);
    return item;
  });
}

function decodeJson(body: Uint8Array): OtlpResourceSpans[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(body));
  } catch (error) {
    throw new OtlpDecodeError(`The body is not OTLP JSON: ${(error as Error).message}.`);
  }
  if (!isObject(parsed)) throw new OtlpDecodeError("The body must be a JSON object (an ExportTraceServiceRequest).");
  return jsonList(parsed, "resourceSpans", "").map((rs, i) => {
    const at = `resourceSpans[${i}]`;
    const resource = field(rs, "resource");
    return {
      resource: isObject(resource)
        ? jsonAttributes(field(resource, "attributes"), `${at}.resource.attributes`)
        : new Map(),
      spans: jsonList(rs, "scopeSpans", at).flatMap((ss, j) =>
        jsonList(ss, "spans", `${at}.scopeSpans[${j}]`).map((span, k) => {
          const spanAt = `${at}.scopeSpans[${j}].spans[${k}]`;
          return {
            traceId: jsonId(field(span, "traceId"), `${spanAt}.traceId`),
            spanId: jsonId(field(span, "spanId"), `${spanAt}.spanId`),
            name: typeof span.name === "string" ? span.name : "",
            startTimeUnixNano: jsonUint64(field(span, "startTimeUnixNano"), `${spanAt}.startTimeUnixNano`),
            endTimeUnixNano: jsonUint64(field(span, "endTimeUnixNano"), `${spanAt}.endTimeUnixNano`),
            attributes: jsonAttributes(field(span, "attributes"), `${spanAt}.attributes`),
            events: jsonList(span, "events", spanAt).map((event, e) => ({
              name: typeof event.name === "string" ? event.name : "",
              timeUnixNano: jsonUint64(field(event, "timeUnixNano"), `${spanAt}.events[${e}].timeUnixNano`),
              attributes: jsonAttributes(field(event, "attributes"), `${spanAt}.events[${e}].attributes`),
            })),
          };
        }),
      ),
    };
  });
}

// OTLP JSON writes trace and span ids as hex, not base64 as plain proto3 JSON would.
function jsonId(value: unknown, path: string): string {
  if (value === undefined || value === null || value === "") return "";
  if (typeof value !== "string" || !/^[0-9a-fA-F]*$/.test(value) || value.length % 2 !== 0) {
    throw new OtlpDecodeError(`${path} must be a hex string.`);
  }
  return value.toLowerCase();
}

const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

function jsonInteger(value: unknown, path: string, min: bigint, max: bigint): bigint {
  let result: bigint | null = null;
  if (typeof value === "number" && Number.isInteger(value)) result = BigInt(value);
  else if (typeof value === "string" && /^-?[0-9]+$/.test(value)) result = BigInt(value);
  if (result === null || result < min || result > max) {
    throw new OtlpDecodeError(`${path} must be an integer (a JSON number or a decimal string) in range.`);
  }
  return result;
}

function jsonUint64(value: unknown, path: string): bigint {
  if (value === undefined || value === null) return 0n;
  return jsonInteger(value, path, 0n, UINT64_MAX);
}

function jsonAttributes(value: unknown, path: string, depth = 0): Attributes {
  const attributes: Attributes = new Map();
  if (value === undefined || value === null) return attributes;
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${path} must be an array.`);
  value.forEach((kv, i) => {
    if (!isObject(kv) || typeof kv.key !== "string") {
      throw new OtlpDecodeError(`${path}[${i}] must be an object with a string key.`);
    }
    attributes.set(kv.key, jsonAnyValue(kv.value, `${path}[${i}].value`, depth));
  });
  return attributes;
}

function jsonAnyValue(value: unknown, path: string, depth: number): AnyValue {
  if (value === undefined || value === null) return { kind: "empty" };
  if (depth >= MAX_VALUE_DEPTH) throw new OtlpDecodeError(`${path}: ${NESTED_TOO_DEEP}`);
  if (!isObject(value)) throw new OtlpDecodeError(`${path} must be an AnyValue object.`);
  const has = (camel: string) => field(value, camel) !== undefined;
  if (has("stringValue")) {
    const v = field(value, "stringValue");
    if (typeof v !== "string") throw new OtlpDecodeError(`${path}.stringValue must be a string.`);
    return { kind: "string", value: v };
  }
  if (has("boolValue")) {
    const v = field(value, "boolValue");
    if (typeof v !== "boolean") throw new OtlpDecodeError(`${path}.boolValue must be true or false.`);
    return { kind: "bool", value: v };
  }
  if (has("intValue")) {
    return { kind: "int", value: jsonInteger(field(value, "intValue"), `${path}.intValue`, INT64_MIN, INT64_MAX) };
  }
  if (has("doubleValue")) {
    const v = field(value, "doubleValue");
    // proto3 JSON spells the non-finite doubles as strings.
    const special = new Map([
      ["NaN", Number.NaN],
      ["Infinity", Infinity],
      ["-Infinity", -Infinity],
    ]);
    if (typeof v === "number") return { kind: "double", value: v };
    if (typeof v === "string") {
      const number = special.get(v) ?? (v.trim() === "" ? Number.NaN : Number(v));
      if (special.has(v) || Number.isFinite(number)) return { kind: "double", value: number };
    }
    throw new OtlpDecodeError(`${path}.doubleValue must be a number.`);
  }
  if (has("bytesValue")) {
    const v = field(value, "bytesValue");
    if (typeof v !== "string") throw new OtlpDecodeError(`${path}.bytesValue must be a base64 string.`);
    return { kind: "bytes", value: new Uint8Array(Buffer.from(v, "base64")) };
  }
  if (has("arrayValue")) {
    const array = field(value, "arrayValue");
    if (!isObject(array)) throw new OtlpDecodeError(`${path}.arrayValue must be an object.`);
    const values = field(array, "values") ?? [];
    if (!Array.isArray(values)) throw new OtlpDecodeError(`${path}.arrayValue.values must be an array.`);
    return {
      kind: "array",
      values: values.map((v, i) => jsonAnyValue(v, `${path}.arrayValue.values[${i}]`, depth + 1)),
    };
  }
  if (has("kvlistValue")) {
    const kvlist = field(value, "kvlistValue");
    if (!isObject(kvlist)) throw new OtlpDecodeError(`${path}.kvlistValue must be an object.`);
    return {
      kind: "kvlist",
      values: jsonAttributes(field(kvlist, "values"), `${path}.kvlistValue.values`, depth + 1),
    };
  }
  return { kind: "empty" };
}

// ---------- response ----------

interface ExportResult {
  rejectedSpans: number;
  errorMessage: string;
}

/**
 * ExportTraceServiceResponse in the request's encoding. A full success leaves
 * partial_success unset, as the specification asks.
 */
export function encodeExportResponse(result: ExportResult, encoding: OtlpEncoding): Uint8Array {
  const partial = result.rejectedSpans > 0 || result.errorMessage !== "";
  if (encoding === "json") {
    const body = partial
      ? { partialSuccess: { rejectedSpans: String(result.rejectedSpans), errorMessage: result.errorMessage } }
      : {};
    return new TextEncoder().encode(JSON.stringify(body));
  }
  const message = responseType.create(
    partial ? { partialSuccess: { rejectedSpans: result.rejectedSpans, errorMessage: result.errorMessage } } : {},
  );
  return responseType.encode(message).finish();
}

/** For tests and clients of our own: the response back into plain numbers. */
export function decodeExportResponse(body: Uint8Array, encoding: OtlpEncoding): ExportResult {
  if (encoding === "json") {
    const parsed = JSON.parse(UTF8.decode(body)) as {
      partialSuccess?: { rejectedSpans?: string | number; errorMessage?: string };
    };
    return {
      rejectedSpans: Number(parsed.partialSuccess?.rejectedSpans ?? 0),
      errorMessage: parsed.partialSuccess?.errorMessage ?? "",
    };
  }
  const message = responseType.toObject(responseType.decode(body), { longs: Number, defaults: true }) as {
    partialSuccess?: { rejectedSpans: number; errorMessage: string };
  };
  return {
    rejectedSpans: message.partialSuccess?.rejectedSpans ?? 0,
    errorMessage: message.partialSuccess?.errorMessage ?? "",
  };
}

export const OTLP_CONTENT_TYPES: Record<OtlpEncoding, string> = {
  protobuf: "application/x-protobuf",
  json: "application/json",
};
