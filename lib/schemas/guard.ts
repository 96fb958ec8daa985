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
const compressionPassSchema = z.object(compressionPassShape);

export const compressionPolicySchema = z.object({
  min_size_bytes: nonNegativeInt,
  min_semantic_density: unitInterval,
  max_pass_number: nonNegativeInt,
});

export const evaluateItemSchema = z.object({ pass: compressionPassSchema, policy: compressionPolicySchema });

export const MAX_EVALUATE_BATCH = 10_000;

export const verdictSchema = z.enum(VERDICTS);

// Also what the evaluate byte path accepts as a pass id or hash: within `max` UTF-16 units
// means within `max` code points; longer strings go to the schema, which counts code points.
export const isShortText = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max && !v.includes("\u0000") && v.isWellFormed();
