import { z } from "zod";
import { cursorPart } from "../http/cursor";
import { limitSchema } from "../http/list";
import { nonNegativeInt, text, unitInterval } from "./common";

export const policyBodySchema = z.object({
  min_size_bytes: nonNegativeInt,
  min_semantic_density: unitInterval,
  max_pass_number: nonNegativeInt,
  required_fields: z
    .array(text({ min: 1, max: 256 }))
    .max(256)
    .default([]),
  description: text({ max: 2048 }).nullish(),
});
export type PolicyBody = z.infer<typeof policyBodySchema>;

export const policyListQuerySchema = z.object({ cursor: z.string().optional(), limit: limitSchema });
/** Policies are listed by content class: the cursor is the last class shown. */
export const policyCursorSchema = z.tuple([cursorPart.text]);
