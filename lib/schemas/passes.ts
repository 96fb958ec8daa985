import { z } from "zod";
import { chainIdSchema, contentClassSchema, jsonObject, nullMeansAbsent, text, timestampSchema } from "./common";
import { compressionPassShape, verdictSchema } from "./guard";

export const MAX_PASS_BATCH = 5_000;
export const DEFAULT_CONTENT_CLASS = "default";

// Stored content hashes are btree-indexed, and an index entry holds at most 2,704 bytes:
// 512 code points stay under that even when every one takes four bytes in UTF-8.
const storedHash = text({ max: 512 });

export const passReceiptSchema = nullMeansAbsent(
  ["input_content_hash", "content_class", "created_at", "metadata", "verdict", "manifest_digest"],
  z.object({
    ...compressionPassShape,
    current_content_hash: storedHash,
    chain_id: chainIdSchema,
    input_content_hash: storedHash.nullish(),
    content_class: contentClassSchema.default(DEFAULT_CONTENT_CLASS),
    created_at: timestampSchema.nullish(),
    metadata: jsonObject(16 * 1024).nullish(),
    verdict: verdictSchema.nullish(),
    manifest_digest: text({ max: 256 }).nullish(),
  }),
);
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
