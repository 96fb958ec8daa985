import { z } from "zod";
import {
  chainIdSchema,
  contentClassSchema,
  jsonObject,
  nonNegativeInt,
  nullMeansAbsent,
  text,
  timestampSchema,
  utcTimestamp,
} from "./common";
import { compressionPassShape, verdictSchema } from "./guard";
import type { ServerChecks } from "../content-checks/check-content";
import { MAX_CONTENT_BYTES } from "../content-checks/formats";
import { bodyDigest, canonicalJson } from "../guard/canonical";
import { VERDICTS } from "../guard/guard";
import { sha256Hex } from "../guard/hash";

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

/**
 * Where receipts of a body (one receipt, or `{"receipts": [...]}`) carry `content` or
 * `input_content` over the content limit: a body too large for what it asks, answered 413 with
 * these paths rather than 422 (shared/API.md, "Measured density").
 */
export function oversizedContentPaths(body: unknown): string[] {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
  const batch = isRecord(body) && Array.isArray(body.receipts);
  const items: unknown[] = batch ? (body.receipts as unknown[]) : [body];
  const paths: string[] = [];
  items.forEach((item, i) => {
    if (!isRecord(item)) return;
    for (const field of ["content", "input_content"] as const) {
      const v = item[field];
      if (typeof v === "string" && (v.length > MAX_CONTENT_BYTES || Buffer.byteLength(v, "utf8") > MAX_CONTENT_BYTES))
        paths.push(batch ? `receipts.${i}.${field}` : field);
    }
  });
  return paths;
}

export const passReceiptSchema = nullMeansAbsent(
  [
    "input_content_hash",
    "content_class",
    "created_at",
    "metadata",
    "verdict",
    "manifest_digest",
    "content",
    "input_content",
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
    /** Pass 1's input, the chain's source: passes with content are measured against it (not stored). */
    input_content: contentSchema.nullish(),
    /** Store `content` as the pass's cached original (shared/API.md, "Server-side content checks"). */
    cache_original: z.boolean().nullish(),
  }),
);
export type PassReceipt = z.infer<typeof passReceiptSchema>;

// ---------------------------------------------------------------------------------------
// Answers

const verdict = verdictSchema;

export const manifestSchema = z
  .object({ verdict, directive: z.string(), manifest_digest: z.string().regex(/^[0-9a-f]{64}$/) })
  .meta({ id: "Manifest" });

export const serverChecksSchema = z.object({
  size_matches: z.boolean().nullable(),
  hash_matches: z.boolean().nullable(),
  parseable: z.boolean().nullable(),
  schema_valid: z.boolean().nullable(),
  problems: z.array(z.string()),
  semantic_density_score: z.number().min(0).max(1).optional().describe("measured, when the chain's source is known"),
  facts: z
    .object({ in_source: nonNegativeInt, retained: nonNegativeInt, recoverable: nonNegativeInt, lost: nonNegativeInt })
    .nullable()
    .optional(),
  lost_examples: z.array(z.string()).optional(),
  recoverable_examples: z
    .array(z.object({ fact: z.string(), hash: z.string() }))
    .optional()
    .describe("facts the content does not state but a CCR marker in it makes recoverable, with the original's key"),
  measurement_mismatch: z.boolean().optional(),
});
// ServerChecks (lib/content-checks, which the SDK ships without zod) is what the server
// computes; this schema is how it answers. Neither may gain a field the other lacks, and what
// is computed must fit the answer: the compiler holds the two together.
type ServerChecksAnswer = z.infer<typeof serverChecksSchema>;
type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false;
const serverChecksAgree: SameKeys<ServerChecks, ServerChecksAnswer> = true;
const serverChecksFit = (computed: ServerChecks): ServerChecksAnswer => computed;
void serverChecksAgree;
void serverChecksFit;

/**
 * What a stored receipt answers: the server's verdict on it, and, for a receipt that carried
 * its content, what the server found (`server_checks`, `checked_verdict`, `checked_mismatch`).
 */
export const passResultSchema = z
  .object({
    chain_id: z.string(),
    pass_id: z.string(),
    verdict,
    directive: z.string(),
    manifest_digest: z.string(),
    policy_version: nonNegativeInt,
    client_mismatch: z.boolean(),
    server_checks: serverChecksSchema.nullable().optional(),
    checked_verdict: verdict.nullable().optional(),
    checked_mismatch: z.boolean().optional().describe("the content contradicts one of the client's claims"),
    measurement_mismatch: z
      .boolean()
      .optional()
      .describe("the guard on the measured density, parseability and schema disagrees with the guard on the claims"),
    unmeasured: z
      .boolean()
      .optional()
      .describe(
        "present (true) when the class's density_source is measured and the server could not measure the pass (no content, or no source for its chain): the chain follows the verdict on its claims",
      ),
    effective_verdict: verdict
      .optional()
      .describe("present when it differs from verdict: the verdict the chain follows (density_source measured)"),
  })
  .meta({ id: "PassResult" });
export type PassResult = z.infer<typeof passResultSchema>;

export const passWireSchema = z
  .object({
    chain_id: z.string(),
    pass_id: z.string(),
    pass_number: nonNegativeInt,
    input_content_hash: z.string().nullable(),
    current_content_hash: z.string(),
    current_size_bytes: nonNegativeInt,
    is_parseable: z.boolean(),
    schema_valid: z.boolean(),
    semantic_density_score: z.number(),
    content_class: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_at: utcTimestamp,
    received_at: utcTimestamp,
    verdict,
    directive: z.string(),
    manifest_digest: z.string(),
    policy_version: nonNegativeInt,
    client_verdict: z.string().nullable(),
    client_manifest_digest: z.string().nullable(),
    client_mismatch: z.boolean(),
    /** Present when the receipt carried its content: what the server measured for itself. */
    server_checks: serverChecksSchema.nullable().optional(),
    /** The guard's verdict on the server's findings; null without content. */
    checked_verdict: verdict.nullable().optional(),
    checked_mismatch: z.boolean().describe("the content contradicts one of the client's claims"),
    measurement_mismatch: z
      .boolean()
      .describe("the guard on the measured density, parseability and schema disagrees with the guard on the claims"),
    unmeasured: z
      .boolean()
      .describe(
        "the class's density_source is measured, but the server could not measure this pass: it counts on its claims",
      ),
    effective_verdict: verdict.describe(
      "the verdict the chain follows (collapse point, status, metrics, webhooks): verdict, or checked_verdict where the server measured the pass under density_source measured",
    ),
  })
  .meta({ id: "Pass" });
export type PassWire = z.infer<typeof passWireSchema>;

// ---------------------------------------------------------------------------------------
// The fast path of a 5,000-receipt batch: a well-formed receipt is checked and digested by
// hand, with exactly the schema's answer and bodyDigest's text; anything else goes to the
// schema, which decides and words the errors. test/unit/pass-receipt-fast.test.ts holds the
// two paths equal.

const metadataSchema = jsonObject(16 * 1024);
const VERDICT_SET: ReadonlySet<string> = new Set(VERDICTS);
const CONTENT_CLASS = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
// The pattern z.iso.datetime({ offset: true }) checks, with timestampSchema's year bounds.
const TIMESTAMP = z.regexes.datetime({ offset: true });
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
// Within `max` UTF-16 units is within `max` code points; a longer string goes to the schema.
const shortText = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max && !v.includes("\u0000") && v.isWellFormed();
const timestamp = (v: unknown): v is string => {
  if (typeof v !== "string" || !TIMESTAMP.test(v)) return false;
  const at = Date.parse(v);
  return at >= EARLIEST && at <= LATEST;
};

/** A pass's content (or input) as contentSchema takes it: storable text of at most 4 MiB as UTF-8. */
const contentText = (v: unknown): v is string =>
  typeof v === "string" &&
  v.length <= MAX_CONTENT_BYTES &&
  !v.includes("\u0000") &&
  v.isWellFormed() &&
  Buffer.byteLength(v, "utf8") <= MAX_CONTENT_BYTES;

/** The schema's answer for a plainly valid receipt, without zod; null for anything else. */
export function quickPassReceipt(value: unknown): PassReceipt | null {
  if (!isRecord(value)) return null;
  const v = value;
  if (
    !shortText(v.pass_id, 1, 256) ||
    !count(v.pass_number) ||
    !shortText(v.current_content_hash, 0, 512) ||
    !count(v.current_size_bytes) ||
    typeof v.is_parseable !== "boolean" ||
    typeof v.schema_valid !== "boolean" ||
    typeof v.semantic_density_score !== "number" ||
    !(v.semantic_density_score >= 0 && v.semantic_density_score <= 1) ||
    !shortText(v.chain_id, 1, 256)
  )
    return null;
  const out: PassReceipt = {
    pass_id: v.pass_id,
    pass_number: v.pass_number,
    current_content_hash: v.current_content_hash,
    current_size_bytes: v.current_size_bytes,
    is_parseable: v.is_parseable,
    schema_valid: v.schema_valid,
    semantic_density_score: v.semantic_density_score,
    chain_id: v.chain_id,
  } as PassReceipt;
  // Null and absent mean the same for every optional field (nullMeansAbsent). Fields are set
  // in the schema's order, so the two answers are alike down to their key order.
  if (v.input_content_hash != null) {
    if (!shortText(v.input_content_hash, 0, 512)) return null;
    out.input_content_hash = v.input_content_hash;
  }
  if (v.content_class != null) {
    if (typeof v.content_class !== "string" || !CONTENT_CLASS.test(v.content_class)) return null;
    out.content_class = v.content_class;
  } else out.content_class = DEFAULT_CONTENT_CLASS;
  if (v.created_at != null) {
    if (!timestamp(v.created_at)) return null;
    out.created_at = v.created_at;
  }
  if (v.metadata != null) {
    const metadata = metadataSchema.safeParse(v.metadata);
    if (!metadata.success) return null;
    out.metadata = metadata.data;
  }
  if (v.verdict != null) {
    if (typeof v.verdict !== "string" || !VERDICT_SET.has(v.verdict)) return null;
    out.verdict = v.verdict as PassReceipt["verdict"];
  }
  if (v.manifest_digest != null) {
    if (!shortText(v.manifest_digest, 0, 256)) return null;
    out.manifest_digest = v.manifest_digest;
  }
  if (v.content != null) {
    if (!contentText(v.content)) return null;
    out.content = v.content;
  }
  if (v.input_content != null) {
    if (!contentText(v.input_content)) return null;
    out.input_content = v.input_content;
  }
  if (v.cache_original != null) {
    if (typeof v.cache_original !== "boolean") return null;
    out.cache_original = v.cache_original;
  }
  return out;
}

// A receipt's fields in the order canonicalJson sorts them (every one a plain name).
const RECEIPT_KEYS = [
  "cache_original",
  "chain_id",
  "content",
  "content_class",
  "created_at",
  "current_content_hash",
  "current_size_bytes",
  "input_content",
  "input_content_hash",
  "is_parseable",
  "manifest_digest",
  "metadata",
  "pass_id",
  "pass_number",
  "schema_valid",
  "semantic_density_score",
  "verdict",
] as const satisfies readonly (keyof PassReceipt)[];
const RECEIPT_KEY_SET: ReadonlySet<string> = new Set(RECEIPT_KEYS);
const KEY_PREFIX = RECEIPT_KEYS.map((k) => `${JSON.stringify(k)}:`);

/**
 * bodyDigest(receipt), the idempotency digest stored with each pass: the same canonical
 * text, written without sorting keys that are known in advance. Any other object (a field
 * this list does not know) takes bodyDigest itself.
 */
export function passReceiptDigest(receipt: PassReceipt): string {
  const r = receipt as Record<string, unknown>;
  for (const key in r) if (!RECEIPT_KEY_SET.has(key)) return bodyDigest(receipt);
  let out = "";
  for (let i = 0; i < RECEIPT_KEYS.length; i++) {
    const value = r[RECEIPT_KEYS[i] as string];
    if (value === undefined) continue;
    const text = typeof value === "object" && value !== null ? canonicalJson(value) : JSON.stringify(value);
    out += (out ? "," : "") + KEY_PREFIX[i] + text;
  }
  return sha256Hex(`{${out}}`);
}
