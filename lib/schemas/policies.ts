import { z } from "zod";
import { cursorPart } from "../http/cursor";
import { limitSchema } from "../http/list";
import { CONTENT_FORMATS, DECODED_FORMATS, DEFAULT_CONTENT_FORMAT } from "../content-checks/formats";
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
  /** How the server parses receipt content (server-side content checks). */
  format: z.enum(CONTENT_FORMATS).default(DEFAULT_CONTENT_FORMAT),
  /** With format base64: what the decoded bytes must be. Absent means any. */
  decoded_format: z.enum(DECODED_FORMATS).nullish(),
  /**
   * Days this class's chains are kept after their last activity, instead of the server-wide
   * FLOORLINE_RETENTION_DAYS. Null follows the server-wide setting; absent keeps what the
   * version in force says, so a floor saved without it never drops it.
   */
  retention_days: z.number().int().min(1).max(36_500).nullish(),
  /** Why the floor changes; kept with the version, not part of the floor itself. */
  note: text({ max: 2048 }).nullish(),
});
export type PolicyBody = z.infer<typeof policyBodySchema>;

export const policyListQuerySchema = z.object({ cursor: z.string().optional(), limit: limitSchema });
/** Policies are listed by content class: the cursor is the last class shown. */
export const policyCursorSchema = z.tuple([cursorPart.text]);
