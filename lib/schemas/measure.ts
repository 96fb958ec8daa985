// POST /api/v1/measure (shared/API.md, "Measured density"): the request and the answer.
import { z } from "zod";
import { MAX_CONTENT_BYTES } from "../content-checks/formats";
import { MAX_LOST_EXAMPLES, MEASURE_FORMATS, METHOD } from "../measure/index";
import { utf8Length } from "../measure/tokens";
import { contentClassSchema } from "./common";

export const measureRequestSchema = z.object({
  content: z.string().describe(`The content to measure, at most ${MAX_CONTENT_BYTES / (1024 * 1024)} MiB as UTF-8.`),
  source: z
    .string()
    .nullish()
    .describe("What the chain started from (pass 1's input); without it the content is measured on its own."),
  format: z.enum(MEASURE_FORMATS).optional(),
  content_class: contentClassSchema
    .optional()
    .describe("Supplies its policy's format and required fields when the body names no format."),
});
export type MeasureRequest = z.infer<typeof measureRequestSchema>;

/** The strings of a request over the content limit, by field: answered 413, not 422. */
export function oversizedFields(request: MeasureRequest): string[] {
  const fields: [string, string | null | undefined][] = [
    ["content", request.content],
    ["source", request.source],
  ];
  return fields
    .filter(([, v]) => typeof v === "string" && (v.length > MAX_CONTENT_BYTES || utf8Length(v) > MAX_CONTENT_BYTES))
    .map(([name]) => name);
}

const factCountsSchema = z.object({
  in_source: z.int().min(0),
  retained: z.int().min(0),
  recoverable: z.int().min(0),
  lost: z.int().min(0),
});

export const measurementSchema = z.object({
  format: z.enum(["text", "json", "base64"]),
  parseable: z.boolean(),
  schema_valid: z.boolean().nullable(),
  semantic_density_score: z.number().min(0).max(1),
  facts: factCountsSchema.nullable(),
  lost_examples: z.array(z.string()).max(MAX_LOST_EXAMPLES),
  method: z.string().describe(`The method's name and version, "${METHOD}" today (docs/measurement.md).`),
});
