import { z } from "zod";
import { chainIdSchema, contentClassSchema, jsonObject, text, timestampSchema } from "./common";
import { compressionPassShape, verdictSchema } from "./guard";

export const MAX_PASS_BATCH = 5_000;
export const DEFAULT_CONTENT_CLASS = "default";

export const passReceiptSchema = z.object({
  ...compressionPassShape,
  chain_id: chainIdSchema,
  input_content_hash: text({ max: 4096 }).nullish(),
  content_class: contentClassSchema.default(DEFAULT_CONTENT_CLASS),
  created_at: timestampSchema.nullish(),
  metadata: jsonObject(16 * 1024).nullish(),
  verdict: verdictSchema.nullish(),
  manifest_digest: text({ max: 256 }).nullish(),
});
export type PassReceipt = z.infer<typeof passReceiptSchema>;

export interface PassResult {
  chain_id: string;
  pass_id: string;
  verdict: string;
  directive: string;
  manifest_digest: string;
  policy_version: number;
  client_mismatch: boolean;
}
