import { Buffer, isAscii } from "node:buffer";
import { ApiError } from "../errors";
import { processSingleton } from "../process-singleton";
import { env, type EnvSource } from "../env";
import { SOCKET_HEADER } from "../auth/client-address";

export const MiB = 1024 * 1024;
export const DEFAULT_BODY_LIMIT = 10 * MiB;

/**
 * A missing type is refused too: a web page can send a body without one (`fetch` with
 * `mode: "no-cors"` and a Blob) and no browser asks first, so only a declared JSON type
 * proves the sender could have been refused by CORS.
 */
function isJsonContentType(header: string | null): boolean {
  if (!header) return false;
  const type = (header.split(";")[0] ?? "").trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

// In-flight body budget. Every request body counts, byte by byte as it arrives, against one
// process-wide budget until its request is answered, so a burst of large uploads is refused
// with 503 + Retry-After instead of growing the heap without bound. FLOORLINE_BODY_BUDGET_MB
// sets it (docs/configuration.md). A body alone in flight is never refused by the budget (only by
// its endpoint's own size limit), so one upload larger than the budget still goes through.
const DEFAULT_BODY_BUDGET = 256 * MiB;
const RETRY_AFTER_BUSY_SECONDS = "2";
/**
 * How much of a declared length is reserved before its bytes arrive: enough that concurrent
 * uploads of ordinary size are admitted or refused whole, too little for sockets that declare
 * much and send nothing to fill the budget. The rest counts as it arrives.
 */
const UPFRONT_RESERVATION = MiB;
/** A body that sends no byte for this long is dropped (408): FLOORLINE_BODY_IDLE_TIMEOUT_MS. */
const DEFAULT_BODY_IDLE_MS = 10_000;

/**
 * The part of the budget kept for light callers: once bodies in flight pass the rest of it, a
 * caller that already holds HEAVY_CALLER_SHARE of the budget gets 503 for more, so one key,
 * session or address uploading (or trickling) large bodies cannot make another's small write
 * wait. A body alone in flight may still use it all.
 */
const LIGHT_CALLERS_SHARE = 1 / 4;
const HEAVY_CALLER_SHARE = 1 / 8;

interface BudgetState {
  inFlight: number;
  held: WeakMap<Request, number>;
  /** Bytes in flight per caller (callerOf), and each request's caller. */
  byCaller: Map<string, number>;
  callerOf: WeakMap<Request, string>;
}
const budget = processSingleton<BudgetState>("bodyBudget", () => ({
  inFlight: 0,
  held: new WeakMap(),
  byCaller: new Map(),
  callerOf: new WeakMap(),
}));

const SESSION_COOKIE = /(?:^|;\s*)(?:__Host-)?floorline_session=([^;]*)/;

/**
 * Who sends a body, for its share of the budget: its bearer credential, else its session, else
 * the socket facts scripts/start.ts stamped on it (its address; a client cannot set them).
 */
function callerOf(request: Request): string {
  const known = budget.callerOf.get(request);
  if (known !== undefined) return known;
  const headers = request.headers;
  const bearer = headers.get("authorization");
  const session = bearer ? null : SESSION_COOKIE.exec(headers.get("cookie") ?? "")?.[1];
  const caller = bearer ? `b ${bearer}` : session ? `s ${session}` : `a ${headers.get(SOCKET_HEADER) ?? ""}`;
  budget.callerOf.set(request, caller);
  return caller;
}

function bodyBudgetBytes(source?: EnvSource): number {
  const mb = env("FLOORLINE_BODY_BUDGET_MB", source);
  return mb === undefined ? DEFAULT_BODY_BUDGET : Math.floor(mb * MiB);
}

/** Bytes of request bodies held right now (for metrics and tests). */
export function bodyBytesInFlight(): number {
  return budget.inFlight;
}

/**
 * What a JSON body holds in memory per byte on the wire, counted against the budget: while
 * JSON.parse runs, the text read so far, the joined text it flattens and the parsed value are
 * all alive at once (one byte a character for ASCII; UTF-16 text costs more, and the parsed
 * value goes on to be hashed and handed to the database). Counted at 3, concurrent large
 * originals grow the embedded server by little more than the budget (`bench:body-memory`);
 * counted at 2, by well over it.
 */
const BODY_COST = 3;

/**
 * Counts `bytes` more of this request's body against the budget, or throws 503 when other
 * bodies in flight leave no room for them.
 */
export function reserveBodyBytes(request: Request, bytes: number): void {
  const total = bodyBudgetBytes();
  const mine = budget.held.get(request) ?? 0;
  const others = budget.inFlight - mine;
  const caller = callerOf(request);
  const callerHeld = budget.byCaller.get(caller) ?? 0;
  const heavy =
    others > 0 &&
    callerHeld + bytes > total * HEAVY_CALLER_SHARE &&
    budget.inFlight + bytes > total * (1 - LIGHT_CALLERS_SHARE);
  if ((others > 0 && budget.inFlight + bytes > total) || heavy) {
    throw new ApiError("server_busy", "The server is receiving too much data at once; retry shortly.", {
      headers: { "Retry-After": RETRY_AFTER_BUSY_SECONDS },
    });
  }
  budget.held.set(request, mine + bytes);
  budget.byCaller.set(caller, callerHeld + bytes);
  budget.inFlight += bytes;
}

/** Gives back what a request's body held; the route wrapper calls it once the answer is built. */
export function releaseBodyBytes(request: Request): void {
  const mine = budget.held.get(request);
  if (mine === undefined) return;
  budget.held.delete(request);
  budget.inFlight -= mine;
  const caller = callerOf(request);
  const left = (budget.byCaller.get(caller) ?? 0) - mine;
  if (left > 0) budget.byCaller.set(caller, left);
  else budget.byCaller.delete(caller);
}

/** A body stream that failed part-way: the client went away or the connection broke. */
export function bodyCutOff(): ApiError {
  return new ApiError("bad_request", "The body ended before it was complete (the upload was cut off); send it again.");
}

/** A body that stalled: no byte arrived for `idleMs`. */
function bodyStalled(idleMs: number): ApiError {
  return new ApiError("request_timeout", `The body stalled: no byte arrived for ${idleMs / 1000} s; send it again.`);
}

/** How long a body may send nothing: FLOORLINE_BODY_IDLE_TIMEOUT_MS. */
export function bodyIdleMs(): number {
  return env("FLOORLINE_BODY_IDLE_TIMEOUT_MS") ?? DEFAULT_BODY_IDLE_MS;
}

/**
 * The reader's next chunk, or bodyStalled (408) when none comes within `idleMs`; the stream's
 * own failures pass through for the caller to name.
 */
export async function readWithin<T>(
  reader: ReadableStreamDefaultReader<T>,
  idleMs: number,
): Promise<ReadableStreamReadResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(bodyStalled(idleMs)), idleMs);
  });
  try {
    return await Promise.race([reader.read(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads and drops up to `room` more bytes; cancels the body when there are more, or when it
 * sends nothing for `idleMs` (a refused body that stalls would otherwise hold its handler).
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, room: number, idleMs: number): Promise<void> {
  try {
    for (let left = room; ; ) {
      const { done, value } = await readWithin(reader, idleMs);
      if (done) return;
      left -= value.byteLength;
      if (left < 0) break;
    }
  } catch (error) {
    // A stalled body's stream may not end its cancel while its socket stays open: do not wait.
    if (error instanceof ApiError && error.code === "request_timeout") void reader.cancel().catch(() => {});
    return;
  }
  await reader.cancel().catch(() => {});
}

/**
 * Reads and parses a JSON body, refusing non-JSON types and bodies over `limit` bytes without
 * buffering them. The bytes are decoded as they arrive and dropped, so a body is held as
 * bytes only one chunk at a time, then once as text, then as the parsed value.
 */
export async function readJson(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<unknown> {
  return parseJsonBody(await readBody(request, limit, "text"));
}

/**
 * readJson's reading without its parse, for a handler that parses bytes itself: the same
 * checks, limit, budget and errors, answering the body's bytes (one buffer) when they are all
 * ASCII, else its text decoded as readJson decodes it. `parseJsonBody` turns either into
 * readJson's value (or its errors). `onAsciiChunk` sees each chunk as it arrives, up to the
 * first that is not ASCII, so work on the body can start before its end; what it throws ends
 * the reading and is thrown as it is.
 */
export function readJsonBody(
  request: Request,
  limit = DEFAULT_BODY_LIMIT,
  onAsciiChunk?: (chunk: Uint8Array) => void,
): Promise<Buffer | string> {
  return readBody(request, limit, "bytes", onAsciiChunk);
}

/**
 * A JSON body's reading for both: its text, or (`ascii: "bytes"`) its bytes while they are all
 * ASCII. Fatal UTF-8: a lenient decode would store U+FFFD where the client sent other bytes.
 * The decoder is made at the first chunk that is not ASCII (a byte-order mark is dropped only
 * at the start of the body); until then each chunk is kept as it came or read as Latin-1,
 * which for ASCII is the same text, made in one copy as the one-byte string V8 keeps it as:
 * twice as fast on the bodies agents send.
 */
async function readBody(
  request: Request,
  limit: number,
  ascii: "text" | "bytes",
  onAsciiChunk?: (chunk: Uint8Array) => void,
): Promise<Buffer | string> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw new ApiError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
  }
  const encoding = request.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    throw new ApiError(
      "unsupported_media_type",
      `Send the body uncompressed: Content-Encoding ${encoding} is not accepted.`,
    );
  }
  const tooLarge = () =>
    new ApiError(
      "payload_too_large",
      `The body is larger than the ${Math.round(limit / MiB)} MiB this endpoint accepts.`,
    );
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!request.body) throw new ApiError("invalid_json", "The request has no body; send a JSON document.");

  const chunks: Uint8Array[] = [];
  let decoder: TextDecoder | undefined;
  const parts: string[] = [];
  let size = 0;
  const reader = request.body.getReader();
  // What a body costs is not its wire size (see BODY_COST).
  // A declared length is admitted (or refused) up to UPFRONT_RESERVATION before reading, so
  // concurrent uploads of ordinary size are not all let in part-way and then all refused;
  // beyond it, and for an undeclared length, bytes count as they come.
  let reserved = 0;
  const idleMs = bodyIdleMs();
  try {
    if (Number.isFinite(declared) && declared > 0) {
      reserved = Math.min(declared, UPFRONT_RESERVATION);
      reserveBodyBytes(request, reserved * BODY_COST);
    }
    for (;;) {
      const { done, value } = await readWithin(reader, idleMs).catch((error: unknown) => {
        throw error instanceof ApiError ? error : bodyCutOff();
      });
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw tooLarge();
      if (size > reserved) {
        reserveBodyBytes(request, (size - reserved) * BODY_COST);
        reserved = size;
      }
      if (!decoder && isAscii(value)) {
        if (ascii === "bytes") chunks.push(value);
        else parts.push(asBuffer(value).toString("latin1"));
        onAsciiChunk?.(value);
        continue;
      }
      if (!decoder) {
        for (const chunk of chunks) parts.push(asBuffer(chunk).toString("latin1"));
        chunks.length = 0;
      }
      decoder ??= new TextDecoder("utf-8", { fatal: true, ignoreBOM: size > value.byteLength });
      parts.push(decodeUtf8(decoder, value));
    }
    if (decoder) parts.push(decodeUtf8(decoder));
  } catch (error) {
    chunks.length = 0;
    parts.length = 0;
    // Refused for room: read the rest and drop it, so the client (still sending) gets the 503
    // instead of a reset connection. Past the endpoint's limit, the same, for as much again at
    // most: a client still sending when the body passed the limit otherwise had its socket
    // closed under it and never read the 413 (EPIPE). For any other failure, stop.
    if (error instanceof ApiError && error.code === "server_busy") await drain(reader, limit - size, idleMs);
    else if (error instanceof ApiError && error.code === "payload_too_large") await drain(reader, limit, idleMs);
    // A stalled body's stream may not end its cancel while its socket stays open: do not wait.
    else if (error instanceof ApiError && error.code === "request_timeout") void reader.cancel().catch(() => {});
    else await reader.cancel().catch(() => {});
    throw error;
  }
  if (decoder || ascii === "text") {
    const text = parts.join("");
    parts.length = 0;
    return text;
  }
  return chunks.length === 1 ? asBuffer(chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
}

/** The decoder's next text (the rest, without `bytes`); refuses bytes that are not UTF-8. */
function decodeUtf8(decoder: TextDecoder, bytes?: Uint8Array): string {
  try {
    return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
  } catch {
    throw new ApiError("invalid_json", "The body is not valid UTF-8; send JSON encoded as UTF-8.");
  }
}

/** What readJson answers for a body read by readJsonBody. */
export function parseJsonBody(body: Buffer | string): unknown {
  const text = typeof body === "string" ? body : body.toString("latin1");
  if (text.trim() === "") throw new ApiError("invalid_json", "The request body is empty; send a JSON document.");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError("invalid_json", `The body is not valid JSON: ${(error as Error).message}.`);
  }
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
