import { z } from "zod";
import { chainIdSchema, contentClassSchema, jsonObject, nullMeansAbsent, text, timestampSchema } from "./common";
import { compressionPassShape, verdictSchema } from "./guard";
import type { PassWire } from "../chains/types";

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

/** What a stored receipt answers: the server's verdict on it. */
export type PassResult = Pick<
  PassWire,
  "chain_id" | "pass_id" | "verdict" | "directive" | "manifest_digest" | "policy_version" | "client_mismatch"
>;
