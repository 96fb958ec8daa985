// The raw body of an OTLP/HTTP request: identity or gzip, read as a stream and cut off at
// `limit` decompressed bytes. A small gzip body can inflate a thousandfold; it is never
// inflated past the limit.
import { ApiError } from "../errors";
import { bodyCutOff, bodyIdleMs, DEFAULT_BODY_LIMIT, MiB, readWithin, reserveBodyBytes } from "../http/body";

function tooLarge(limit: number, decompressed: boolean): ApiError {
  return new ApiError(
    "payload_too_large",
    `The body is larger than the ${Math.round(limit / MiB)} MiB this endpoint accepts${decompressed ? " once decompressed" : ""}.`,
  );
}

export async function readOtlpBody(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<Uint8Array> {
  const encoding = request.headers.get("content-encoding")?.trim().toLowerCase() || "identity";
  if (encoding !== "identity" && encoding !== "gzip") {
    throw new ApiError(
      "unsupported_media_type",
      `Content-Encoding ${encoding} is not accepted; send gzip or identity (OTEL_EXPORTER_OTLP_COMPRESSION=gzip or none).`,
    );
  }
  const gzip = encoding === "gzip";
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit, false);
  if (!request.body) return new Uint8Array();

  let stream: ReadableStream<Uint8Array> = request.body;
  if (gzip)
    stream = stream.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const idleMs = bodyIdleMs();
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, idleMs);
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(limit, gzip);
      }
      // The decompressed bytes are what the process holds: they count against the in-flight
      // body budget (503 with Retry-After when other bodies leave no room), released by route().
      try {
        reserveBodyBytes(request, value.byteLength);
      } catch (error) {
        await reader.cancel().catch(() => {});
        throw error;
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ApiError) {
      // A stalled body: stop reading it (what it held goes back when the route answers).
      // (Without waiting: its stream may not end its cancel while the socket stays open.)
      if (error.code === "request_timeout") void reader.cancel().catch(() => {});
      throw error;
    }
    // Uncompressed, only the stream itself can fail; through gunzip, that or the gzip.
    if (!gzip) throw bodyCutOff();
    throw new ApiError("invalid_body", `The body is not valid gzip: ${(error as Error).message}.`);
  }
  return Buffer.concat(chunks, size);
}
