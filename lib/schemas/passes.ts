// The pass receipt, declared once (README, "A receipt field"): each field's zod schema with its
// fast-path check beside it, the stored pass's wire shape, the digest's key order, and the reader
// of a `POST /api/v1/passes` body (limits, unknown fields named, the fast path, then the schema).
// Longer than most modules on purpose: the declaration and what is derived from it change
// together, and test/unit/receipt-fields.test.ts checks them against each other from here.
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
import { CANARY_KINDS, type CanaryKind, MAX_CANARIES } from "../canaries/canaries";
import type { ServerChecks } from "../content-checks/check-content";
import { MAX_CONTENT_BYTES } from "../content-checks/formats";
import { bodyDigest, canonicalJson } from "../guard/canonical";
import { VERDICTS } from "../guard/guard";
import { sha256Hex } from "../guard/hash";
import { ApiError, type ErrorIssue } from "../errors";
import { parseOneOrBatch } from "../http/batch";

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

// Canaries (docs/canaries.md): synthetic facts an SDK planted, so in clear; ids are the chain's.
const CANARY_ID_MAX = 64;
const CANARY_TEXT_MAX = 256;
const canaryIdSchema = text({ min: 1, max: CANARY_ID_MAX });
export const canarySchema = z
  .strictObject({
    id: canaryIdSchema,
    kind: z.enum(CANARY_KINDS),
    text: text({ min: 1, max: CANARY_TEXT_MAX }).describe("the canary's distinctive value, exactly as planted"),
  })
  .meta({ id: "Canary" });
const canariesSchema = z
  .array(canarySchema)
  .min(1)
  .max(MAX_CANARIES)
  .refine((list) => new Set(list.map((c) => c.id)).size === list.length, "must not name a canary id twice");
// docs/markers.md: a pass whose markers reach an agent without the retrieve tool is a finding.
const contextToolsSchema = z
  .array(text({ min: 1, max: 128 }))
  .max(64)
  .describe("the tool names the agent's context offered when this pass's output was used (docs/markers.md)");
const canaryCheckSchema = z
  .strictObject({
    surviving: z.array(canaryIdSchema).max(MAX_CANARIES * 4),
    checked_text_bytes: nonNegativeInt,
  })
  .meta({ id: "CanaryCheck" });

/**
 * Where receipts of a body (one receipt, or `{"receipts": [...]}`) carry `content` or
 * `input_content` over the content limit: a body too large for what it asks, answered 413 with
 * these paths rather than 422 (docs/measurement.md).
 */
function oversizedContentPaths(body: unknown): string[] {
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

/**
 * A compression-pass receipt as the API takes it: the one declaration of a receipt's fields.
 * Everything else that lists them is derived from this shape or checked against it: which
 * fields may be null or absent (below), the fast path's checks and order, the digest's keys,
 * the fields a stored pass keeps (PASS_RECEIPT_FIELD_USE), the OTLP attributes
 * (lib/otlp/receipts.ts) and the SDKs' receipts (test/unit/receipt-fields.test.ts).
 */
const passReceiptObject = z.strictObject({
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
  /** Store `content` as the pass's cached original (docs/ingest.md, "Server-side content checks"). */
  cache_original: z.boolean().nullish(),
  /** Canaries planted in this pass's input (docs/canaries.md), at most 16. */
  canaries: canariesSchema.nullish(),
  /** Which of the chain's canaries survive in text the client read (its output, or the agent's next). */
  canary_check: canaryCheckSchema.nullish(),
  /** The tool names the agent's context offered when this pass's output was used (docs/markers.md). */
  context_tools: contextToolsSchema.nullish(),
});
const receiptShape = passReceiptObject.shape;
export type PassReceiptField = keyof typeof receiptShape;

/** Every field of a receipt, in the declaration's order (which is the parsed receipt's key order). */
export const PASS_RECEIPT_FIELDS = Object.keys(receiptShape) as PassReceiptField[];

/** The value an absent field takes (content_class's default); undefined: it stays absent. */
const ABSENT = new Map(
  PASS_RECEIPT_FIELDS.flatMap((field) => {
    const absent = receiptShape[field].safeParse(undefined);
    return absent.success ? [[field, absent.data] as const] : [];
  }),
);

/** The fields a receipt may leave out, where null means the same as absent. */
const OPTIONAL_RECEIPT_FIELDS: readonly PassReceiptField[] = [...ABSENT.keys()];

export const passReceiptSchema = nullMeansAbsent(OPTIONAL_RECEIPT_FIELDS, passReceiptObject);
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
  components: z
    .record(z.string(), z.number().min(0).max(1))
    .optional()
    .describe("the parts of the measured density (docs/measurement.md); absent before floorline-facts/4"),
  method: z
    .string()
    .optional()
    .describe("the measurement method that gave the density; absent on passes measured before floorline-facts/4"),
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
    canaries_surviving: z
      .array(z.string())
      .optional()
      .describe(
        "present when the chain has canaries and the server read this pass's content or a canary_check came: the ids surviving (docs/canaries.md)",
      ),
    canary_retention: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("with canaries_surviving: the share of the canaries planted by this pass that survive"),
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
    canaries: z.array(canarySchema).nullable().describe("canaries planted in this pass's input (docs/canaries.md)"),
    canaries_surviving: z
      .array(z.string())
      .nullable()
      .describe(
        "ids of the chain's canaries planted by this pass that survive in it, where the server read its content or a canary_check came with it; null otherwise",
      ),
    canary_retention: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe("the share of the canaries planted by this pass that survive; null with canaries_surviving"),
    context_tools: z
      .array(z.string())
      .nullable()
      .describe(
        "the receipt's context_tools: the tools the agent's context offered (docs/markers.md); null when not sent",
      ),
  })
  .meta({ id: "Pass" });
export type PassWire = z.infer<typeof passWireSchema>;

/**
 * What a stored pass keeps of its receipt as it came (null where the receipt left it out):
 * each receipt field the stored pass has under the same name, but the client's verdict and
 * digest (kept as client_verdict and client_manifest_digest beside the server's own) and
 * created_at (the ingest fills it in with the time the receipt arrived).
 */
const KEPT_OTHERWISE = ["verdict", "manifest_digest", "created_at"] as const;
type KeptReceiptField = Exclude<Extract<PassReceiptField, keyof PassWire>, (typeof KEPT_OTHERWISE)[number]>;
const KEPT_RECEIPT_FIELDS = PASS_RECEIPT_FIELDS.filter(
  (field): field is KeptReceiptField =>
    field in passWireSchema.shape && !(KEPT_OTHERWISE as readonly string[]).includes(field),
);

/** A new object holding the receipt's kept fields, for the stored pass to be completed in place. */
export function keptReceiptFields(r: PassReceipt): Pick<PassWire, KeptReceiptField> {
  const kept: Record<string, unknown> = {};
  for (const field of KEPT_RECEIPT_FIELDS) kept[field] = r[field] ?? null;
  return kept as Pick<PassWire, KeptReceiptField>;
}

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

const CANARY_KIND_SET: ReadonlySet<string> = new Set(CANARY_KINDS);
const isCanaryList = (v: unknown): v is { id: string; kind: CanaryKind; text: string }[] => {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_CANARIES) return false;
  const ids = new Set<string>();
  for (const c of v) {
    if (!isRecord(c) || Object.keys(c).length !== 3) return false;
    if (!shortText(c.id, 1, CANARY_ID_MAX) || ids.has(c.id)) return false;
    if (!shortText(c.text, 1, CANARY_TEXT_MAX) || typeof c.kind !== "string" || !CANARY_KIND_SET.has(c.kind))
      return false;
    ids.add(c.id);
  }
  return true;
};
const isCanaryCheck = (v: unknown): v is { surviving: string[]; checked_text_bytes: number } =>
  isRecord(v) &&
  Object.keys(v).length === 2 &&
  count(v.checked_text_bytes) &&
  Array.isArray(v.surviving) &&
  v.surviving.length <= MAX_CANARIES * 4 &&
  v.surviving.every((id) => shortText(id, 1, CANARY_ID_MAX));

/** What a quick check answers for a value it leaves to the schema. */
const REFUSED: unique symbol = Symbol("refused");
type QuickCheck<T> = (v: unknown) => T | typeof REFUSED;
const when =
  <T>(test: (v: unknown) => v is T): QuickCheck<T> =>
  (v) =>
    test(v) ? v : REFUSED;

/**
 * Each field's check on the fast path, for a present, non-null value: the value the schema
 * would answer, or REFUSED for anything it might refuse or change. A field declared above
 * without a check here does not compile.
 */
const QUICK_CHECKS: { readonly [K in PassReceiptField]-?: QuickCheck<NonNullable<PassReceipt[K]>> } = {
  pass_id: when((v) => shortText(v, 1, 256)),
  pass_number: when(count),
  current_content_hash: when((v) => shortText(v, 0, 512)),
  current_size_bytes: when(count),
  is_parseable: when((v): v is boolean => typeof v === "boolean"),
  schema_valid: when((v): v is boolean => typeof v === "boolean"),
  semantic_density_score: when((v): v is number => typeof v === "number" && v >= 0 && v <= 1),
  chain_id: when((v) => shortText(v, 1, 256)),
  input_content_hash: when((v) => shortText(v, 0, 512)),
  content_class: when((v): v is string => typeof v === "string" && CONTENT_CLASS.test(v)),
  created_at: when(timestamp),
  metadata: (v) => {
    const metadata = metadataSchema.safeParse(v);
    return metadata.success ? metadata.data : REFUSED;
  },
  verdict: when((v): v is NonNullable<PassReceipt["verdict"]> => typeof v === "string" && VERDICT_SET.has(v)),
  manifest_digest: when((v) => shortText(v, 0, 256)),
  content: when(contentText),
  input_content: when(contentText),
  cache_original: when((v): v is boolean => typeof v === "boolean"),
  // Fresh objects in the schema's key order, as the schema answers.
  canaries: (v) => (isCanaryList(v) ? v.map((c) => ({ id: c.id, kind: c.kind, text: c.text })) : REFUSED),
  canary_check: (v) =>
    isCanaryCheck(v) ? { surviving: [...v.surviving], checked_text_bytes: v.checked_text_bytes } : REFUSED,
  context_tools: (v) =>
    Array.isArray(v) && v.length <= 64 && v.every((t) => shortText(t, 1, 128)) ? [...(v as string[])] : REFUSED,
};
const QUICK_FIELDS = PASS_RECEIPT_FIELDS.map(
  (field) => [field, QUICK_CHECKS[field] as QuickCheck<unknown>, ABSENT.has(field), ABSENT.get(field)] as const,
);

/** The schema's answer for a plainly valid receipt, without zod; null for anything else. */
export function quickPassReceipt(value: unknown): PassReceipt | null {
  if (!isRecord(value)) return null;
  // The schema is strict: a field it does not declare goes to it, which refuses it.
  for (const key in value) if (!RECEIPT_KEY_SET.has(key)) return null;
  // Fields are set in the schema's order, so the two answers are alike down to their key order.
  const out: Record<string, unknown> = {};
  for (const [field, check, optional, absent] of QUICK_FIELDS) {
    const v = value[field];
    // Null and absent mean the same for every optional field (nullMeansAbsent).
    if (v == null) {
      if (!optional) return null;
      if (absent !== undefined) out[field] = absent;
      continue;
    }
    const checked = check(v);
    if (checked === REFUSED) return null;
    out[field] = checked;
  }
  return out as PassReceipt;
}

// A receipt's fields in the order canonicalJson sorts them (every one a plain name).
const RECEIPT_KEYS = [...PASS_RECEIPT_FIELDS].sort();
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

/** Unknown fields reported, at most: a batch of misspelt receipts says so without a huge answer. */
const MAX_UNKNOWN_ISSUES = 100;

/** Edits (insertions, deletions, substitutions) between two short names. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] as number;
}

/** The declared field a misspelt one most likely meant: within a third of its length in edits. */
function closestReceiptField(name: string): string | null {
  if (name.length > 64) return null;
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const field of PASS_RECEIPT_FIELDS) {
    const distance = editDistance(name.toLowerCase(), field);
    if (distance < bestDistance) {
      best = field;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Fields of a receipt (or of each receipt of a batch) that the declaration lacks: each named
 * with the closest declared field. Accepted silently, a misspelt `content_clas` put the pass in
 * class `default`; anything a client wants kept goes in `metadata`.
 */
function unknownFieldIssues(body: unknown): ErrorIssue[] {
  if (!isRecord(body)) return [];
  const batch = Array.isArray(body.receipts);
  const items: unknown[] = batch ? (body.receipts as unknown[]) : [body];
  const issues: ErrorIssue[] = [];
  items.forEach((item, i) => {
    if (!isRecord(item) || issues.length >= MAX_UNKNOWN_ISSUES) return;
    for (const key of Object.keys(item)) {
      if (RECEIPT_KEY_SET.has(key) || issues.length >= MAX_UNKNOWN_ISSUES) continue;
      const closest = closestReceiptField(key);
      issues.push({
        path: batch ? `receipts.${i}.${key}` : key,
        message: `is not a receipt field${closest ? ` (did you mean "${closest}"?)` : ""}; put anything else in "metadata", an object of up to 16 KiB`,
      });
    }
  });
  return issues;
}

/**
 * A body of `POST /api/v1/passes` as the route reads it (and the demo's in-process transport):
 * 413 when a content is over the limit, else one receipt or a batch, each checked by the schema
 * (the fast path first). Throws ApiError; nothing is written before this returns.
 */
export function passReceiptsOf(body: unknown): { items: PassReceipt[]; batch: boolean } {
  const oversized = oversizedContentPaths(body);
  if (oversized.length > 0) {
    throw new ApiError(
      "payload_too_large",
      `Content must be at most ${MAX_CONTENT_BYTES / (1024 * 1024)} MiB as UTF-8 (${oversized[0]}); nothing was written.`,
      { issues: oversized.map((path) => ({ path, message: "is over the content limit" })) },
    );
  }
  const unknown = unknownFieldIssues(body);
  if (unknown.length > 0) {
    const [first] = unknown;
    throw new ApiError(
      "validation_failed",
      `A receipt has a field the API does not know (${first?.path}: ${first?.message}); nothing was written.`,
      { issues: unknown },
    );
  }
  return parseOneOrBatch(body, passReceiptSchema, "receipts", MAX_PASS_BATCH, quickPassReceipt);
}
