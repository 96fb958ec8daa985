// POST /api/v1/measure (docs/measurement.md): the request and the answer.
import { z } from "zod";
import { MAX_CONTENT_BYTES } from "../content-checks/formats";
import { MAX_LOST_EXAMPLES, MAX_ORIGINALS, MEASURE_FORMATS, METHOD } from "../measure/index";
import { MARKER_HASH } from "../measure/markers";
import { contentClassSchema, requiredFieldsSchema } from "./common";

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
  required_fields: requiredFieldsSchema
    .optional()
    .describe("Dot paths the content must hold (as a policy's); given, they win over the class's."),
  originals: z
    .record(
      // Either case, as markers are written; the route looks them up in lower case.
      z.string().regex(new RegExp(MARKER_HASH.source, "i"), "a marker's hash: 12 to 64 hex characters"),
      z.string().describe(`An original's text, at most ${MAX_CONTENT_BYTES / (1024 * 1024)} MiB as UTF-8.`),
    )
    .refine((o) => Object.keys(o).length <= MAX_ORIGINALS, `at most ${MAX_ORIGINALS} originals`)
    .optional()
    .describe(
      "Cached originals by the hash a CCR marker in the content names (hash=H or <<ccr:H>>): facts they state are recoverable. The server's own cache is not consulted, so the answer depends on the body alone.",
    ),
});
type MeasureRequest = z.infer<typeof measureRequestSchema>;

/** The strings of a request over the content limit, by field: answered 413, not 422. */
export function oversizedFields(request: MeasureRequest): string[] {
  const fields: [string, string | null | undefined][] = [
    ["content", request.content],
    ["source", request.source],
    ...Object.entries(request.originals ?? {}).map(([hash, text]): [string, string] => [`originals.${hash}`, text]),
  ];
  return fields
    .filter(
      ([, v]) =>
        typeof v === "string" && (v.length > MAX_CONTENT_BYTES || Buffer.byteLength(v, "utf8") > MAX_CONTENT_BYTES),
    )
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
  components: z
    .record(z.string(), z.number().min(0).max(1))
    .describe(
      "What the score is made of: coverage and efficiency with a source, specificity and efficiency without one, none when the content cannot be read (docs/measurement.md)",
    ),
  facts: factCountsSchema.nullable(),
  lost_examples: z.array(z.string()).max(MAX_LOST_EXAMPLES),
  method: z.string().describe(`The method's name and version, "${METHOD}" today (docs/measurement.md).`),
});
