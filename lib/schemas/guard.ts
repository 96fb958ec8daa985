import { z } from "zod";
import { VERDICTS } from "../guard/guard";
import { nonNegativeInt, text, unitInterval } from "./common";

export const compressionPassShape = {
  pass_id: text({ min: 1, max: 256 }),
  pass_number: nonNegativeInt,
  current_content_hash: text({ max: 4096 }),
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
