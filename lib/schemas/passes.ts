import { z } from "zod";
import { chainIdSchema, contentClassSchema, jsonObject, nullMeansAbsent, text, timestampSchema } from "./common";
import { compressionPassShape, verdictSchema } from "./guard";
import type { PassWire } from "../chains/types";
import { MAX_CONTENT_BYTES } from "../content-checks/formats";

export const MAX_PASS_BATCH = 5_000;
export const DEFAULT_CONTENT_CLASS = "default";

// Stored content hashes are btree-indexed, and an index entry holds at most 2,704 bytes:
// 512 code points stay under that even when every one takes four bytes in UTF-8.
const storedHash = text({ max: 512 });

// The pass's output for the server-side checks: large, so checked in linear native calls.
const contentSchema = z
  .string()
  .refine((v) => !v.includes("\u0000") && v.isWellFormed(), "must not contain NUL characters or unpaired surrogates")
  .refine(
    (v) => v.length <= MAX_CONTENT_BYTES && Buffer.byteLength(v, "utf8") <= MAX_CONTENT_BYTES,
    `must be at most ${MAX_CONTENT_BYTES / (1024 * 1024)} MiB as UTF-8`,
  );

export const passReceiptSchema = nullMeansAbsent(
  [
    "input_content_hash",
    "content_class",
    "created_at",
    "metadata",
    "verdict",
    "manifest_digest",
    "content",
    "cache_original",
  ],
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
    content: contentSchema.nullish(),
    /** Store `content` as the pass's cached original (shared/API.md, "Server-side content checks"). */
    cache_original: z.boolean().nullish(),
  }),
);
export type PassReceipt = z.infer<typeof passReceiptSchema>;

/**
 * What a stored receipt answers: the server's verdict on it, and, for a receipt that carried
 * its content, what the server found (`server_checks`, `checked_verdict`, `checked_mismatch`).
 */
export type PassResult = Pick<
  PassWire,
  "chain_id" | "pass_id" | "verdict" | "directive" | "manifest_digest" | "policy_version" | "client_mismatch"
> &
  Partial<Pick<PassWire, "server_checks" | "checked_verdict" | "checked_mismatch">>;
