import { json, serve } from "@/app/_access/api-route";
import { INGEST_ROUTES } from "@/lib/routes/ingest";
import { getPolicy } from "@/db/queries/policies";
import { ApiError } from "@/lib/errors";
import { parseBody } from "@/lib/http/batch";
import { readJson } from "@/lib/http/body";
import type { MeasureFormat, Measurement } from "@/lib/measure/index";
import { MeasureFailure, measureOffThread, measurementBusy } from "@/lib/measure/pool";
import { measureRequestSchema, oversizedFields } from "@/lib/schemas/measure";

// Stateless: nothing is stored. Content that does not parse in its format is a measurement
// (parseable: false), never an error; only the request itself can be refused.
export const { GET, POST, PUT, PATCH, DELETE } = serve(INGEST_ROUTES.measure, {
  POST: async (request) => {
    const body = parseBody(await readJson(request), measureRequestSchema);
    const oversized = oversizedFields(body);
    if (oversized.length > 0) {
      throw new ApiError("payload_too_large", `${oversized.join(" and ")} must be at most 4 MiB as UTF-8.`);
    }
    let format: MeasureFormat = body.format ?? "any";
    let requiredFields: readonly string[] = [];
    if (body.format === undefined && body.content_class !== undefined) {
      const policy = await getPolicy(body.content_class);
      format = policy.format;
      requiredFields = policy.required_fields;
    }
    if (body.required_fields !== undefined) requiredFields = body.required_fields;
    // Markers name originals in either case; the method looks them up in lower case.
    const originals = body.originals
      ? new Map(Object.entries(body.originals).map(([hash, text]) => [hash.toLowerCase(), text]))
      : undefined;
    try {
      const { measurement } = await measureOffThread({
        content: body.content,
        source: body.source ?? undefined,
        format,
        requiredFields,
        originals,
      });
      const { recoverable_examples: _, ...answer } = measurement;
      return json(answer satisfies Measurement);
    } catch (error) {
      if (!(error instanceof MeasureFailure)) throw error;
      if (error.reason === "busy") throw measurementBusy();
      throw new ApiError("measurement_failed", `This content could not be measured: ${error.message}.`);
    }
  },
});
