// OTLP/HTTP trace export: a stock OpenTelemetry exporter with
// OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT/api/v1/otlp posts here.
import { ingestOtlpReceipts } from "@/db/ingest/otlp";
import { mayReadOriginals } from "@/lib/auth/access";
import { ApiError } from "@/lib/errors";
import { serve } from "@/app/_access/api-route";
import { INGEST_ROUTES } from "@/lib/routes/ingest";
import { exportLimits, RETRY_AFTER_SECONDS, takeExportSlot } from "@/lib/otlp/admission";
import { readOtlpBody } from "@/lib/otlp/body";
import {
  decodeExportRequest,
  encodeExportResponse,
  OTLP_CONTENT_TYPES,
  OtlpDecodeError,
  otlpEncodingOf,
} from "@/lib/otlp/codec";
import { receiptsFromExport } from "@/lib/otlp/receipts";

export const { GET, POST, PUT, PATCH, DELETE } = serve(INGEST_ROUTES.otlpTraces, {
  POST: async (request, _context, principal) => {
    const encoding = otlpEncodingOf(request.headers.get("content-type"));
    if (!encoding) {
      throw new ApiError(
        "unsupported_media_type",
        "Send an OTLP ExportTraceServiceRequest as application/x-protobuf or application/json.",
      );
    }
    // The body first, holding no export place while it uploads (lib/otlp/admission.ts).
    const body = await readOtlpBody(request);
    const slot = takeExportSlot(principal);
    if (typeof slot === "string") {
      const { global, perCaller } = exportLimits();
      throw new ApiError(
        "too_many_requests",
        slot === "global"
          ? `The server is storing the ${global} exports it takes at once; retry shortly.`
          : `This credential already has the ${perCaller} exports one caller may have stored at once; retry shortly.`,
        { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } },
      );
    }
    try {
      let resourceSpans: ReturnType<typeof decodeExportRequest>;
      try {
        resourceSpans = decodeExportRequest(body, encoding);
      } catch (error) {
        if (error instanceof OtlpDecodeError) throw new ApiError("invalid_body", error.message);
        throw error;
      }
      const result = await ingestOtlpReceipts(receiptsFromExport(resourceSpans), {
        readsOriginals: mayReadOriginals(principal),
      });
      return new Response(encodeExportResponse(result, encoding) as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: { "content-type": OTLP_CONTENT_TYPES[encoding] },
      });
    } finally {
      slot.release();
    }
  },
});
