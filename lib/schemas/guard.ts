import { z } from "zod";
import { VERDICTS } from "../guard/guard";
import { nonNegativeInt, text, unitInterval } from "./common";

export const PASS_ID_LENGTH = { min: 1, max: 256 } as const;
export const CONTENT_HASH_LENGTH = { min: 0, max: 4096 } as const;

export const compressionPassShape = {
  pass_id: text(PASS_ID_LENGTH),
  pass_number: nonNegativeInt,
  current_content_hash: text(CONTENT_HASH_LENGTH),
  current_size_bytes: nonNegativeInt,
  is_parseable: z.boolean(),
  schema_valid: z.boolean(),
  semantic_density_score: unitInterval,
};
export const compressionPassSchema = z.object(compressionPassShape);

export const compressionPolicySchema = z.object({
  min_size_bytes: nonNegativeInt,
  min_semantic_density: unitInterval,
  max_pass_number: nonNegativeInt,
});

export const evaluateItemSchema = z.object({ pass: compressionPassSchema, policy: compressionPolicySchema });
export type EvaluateItem = z.infer<typeof evaluateItemSchema>;

export const MAX_EVALUATE_BATCH = 10_000;

export const verdictSchema = z.enum(VERDICTS);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
// Each accepts only what the matching schema accepts (the evaluate byte path reads with isShortText too).
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isUnit = (v: unknown): v is number => typeof v === "number" && v >= 0 && v <= 1;
// Within `max` UTF-16 units means within `max` code points; longer strings go to the schema.
export const isShortText = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max && !v.includes("\u0000") && v.isWellFormed();

/**
 * The evaluate schema's answer for a plainly valid item, without zod: a 10,000-item batch
 * spends most of its validation time there. Null for anything it is not sure of, which the
 * schema then judges (and explains).
 */
export function quickEvaluateItem(value: unknown): EvaluateItem | null {
  if (!isRecord(value)) return null;
  const { pass: p, policy: q } = value;
  if (!isRecord(p) || !isRecord(q)) return null;
  if (
    !isShortText(p.pass_id, PASS_ID_LENGTH.min, PASS_ID_LENGTH.max) ||
    !isCount(p.pass_number) ||
    !isShortText(p.current_content_hash, CONTENT_HASH_LENGTH.min, CONTENT_HASH_LENGTH.max) ||
    !isCount(p.current_size_bytes) ||
    typeof p.is_parseable !== "boolean" ||
    typeof p.schema_valid !== "boolean" ||
    !isUnit(p.semantic_density_score) ||
    !isCount(q.min_size_bytes) ||
    !isUnit(q.min_semantic_density) ||
    !isCount(q.max_pass_number)
  )
    return null;
  return {
    pass: {
      pass_id: p.pass_id,
      pass_number: p.pass_number,
      current_content_hash: p.current_content_hash,
      current_size_bytes: p.current_size_bytes,
      is_parseable: p.is_parseable,
      schema_valid: p.schema_valid,
      semantic_density_score: p.semantic_density_score,
    },
    policy: {
      min_size_bytes: q.min_size_bytes,
      min_semantic_density: q.min_semantic_density,
      max_pass_number: q.max_pass_number,
    },
  };
}
