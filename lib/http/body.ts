import { ApiError } from "../errors";

export const MiB = 1024 * 1024;
export const DEFAULT_BODY_LIMIT = 10 * MiB;

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function isJsonContentType(header: string | null): boolean {
  // A missing header is accepted as JSON: scripts posting with bare clients often omit it.
  if (!header) return true;
  const type = (header.split(";")[0] ?? "").trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** Reads and parses a JSON body, refusing non-JSON types and bodies over `limit` bytes without buffering them. */
export async function readJson(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<unknown> {
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
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  let text: string;
  try {
    // Fatal: a lenient decode would store U+FFFD where the client sent other bytes.
    text = UTF8.decode(Buffer.concat(chunks, size));
  } catch {
    throw new ApiError("invalid_json", "The body is not valid UTF-8; send JSON encoded as UTF-8.");
  }
  if (text.trim() === "") throw new ApiError("invalid_json", "The request body is empty; send a JSON document.");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError("invalid_json", `The body is not valid JSON: ${(error as Error).message}.`);
  }
}
