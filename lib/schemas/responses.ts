// The wire shapes of responses, as zod schemas: the OpenAPI document is generated from them
// (beside the request schemas that validate input), and the contract test validates live
// answers against that document, so a field that changes here or in a handler without the
// other fails a test. Objects are closed (extra fields are a test failure, not a silent
// drift); fields that a handler may omit are optional.
import { z } from "zod";
import { KEY_SCOPES, ROLES } from "../auth/credentials.mjs";
import { CHAIN_STATUSES } from "./chains";
import { VERDICTS } from "../guard/guard";
import { NODE_TYPES } from "../traces/trace";
import { REJECTED_CONTENT_MAX_BYTES } from "../traces/types";
import type { IntegrityKind } from "../chains/integrity";

const verdict = z.enum(VERDICTS);
const timestamp = z.string().describe("RFC 3339, UTC");
const count = z.int().min(0);

/** `{"items": [...], "next_cursor": string | null}`, the shape of every list. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

// ---------------------------------------------------------------------------------------
// Errors

export const errorIssueSchema = z.object({ path: z.string(), message: z.string() });

export const errorBodySchema = z
  .object({
    error: z
      .looseObject({
        code: z.string().regex(/^[a-z][a-z0-9_]*$/),
        message: z.string().min(1),
        issues: z.array(errorIssueSchema).optional(),
      })
      .describe("Some codes add fields (`node_id`, `candidates`, `gone_at`, `retryable`, ...)."),
  })
  .meta({ id: "Error" });

// ---------------------------------------------------------------------------------------
// Guard, passes, boundaries, chains

export const manifestSchema = z
  .object({ verdict, directive: z.string(), manifest_digest: z.string().regex(/^[0-9a-f]{64}$/) })
  .meta({ id: "Manifest" });

export const serverChecksSchema = z.object({
  size_matches: z.boolean().nullable(),
  hash_matches: z.boolean().nullable(),
  parseable: z.boolean().nullable(),
  schema_valid: z.boolean().nullable(),
  problems: z.array(z.string()),
});

export const passResultSchema = z
  .object({
    chain_id: z.string(),
    pass_id: z.string(),
    verdict,
    directive: z.string(),
    manifest_digest: z.string(),
    policy_version: count,
    client_mismatch: z.boolean(),
    server_checks: serverChecksSchema.nullable().optional(),
    checked_verdict: verdict.nullable().optional(),
  })
  .meta({ id: "PassResult" });

export const boundaryWireSchema = z
  .object({
    chain_id: z.string(),
    pass_number: count,
    strategy: z.enum(["halt", "restore", "accept_loss"]),
    reason: z.string(),
    restore_pass_id: z.string().nullable(),
    relaxed_policy: z.record(z.string(), z.unknown()).nullable(),
    created_at: timestamp,
  })
  .meta({ id: "Boundary" });

export const collapsePointSchema = z
  .object({ pass_id: z.string(), pass_number: count, verdict })
  .meta({ id: "CollapsePoint" });

export const passWireSchema = z
  .object({
    chain_id: z.string(),
    pass_id: z.string(),
    pass_number: count,
    input_content_hash: z.string().nullable(),
    current_content_hash: z.string(),
    current_size_bytes: count,
    is_parseable: z.boolean(),
    schema_valid: z.boolean(),
    semantic_density_score: z.number(),
    content_class: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_at: timestamp,
    received_at: timestamp,
    verdict,
    directive: z.string(),
    manifest_digest: z.string(),
    policy_version: count,
    client_verdict: z.string().nullable(),
    client_manifest_digest: z.string().nullable(),
    client_mismatch: z.boolean(),
    server_checks: serverChecksSchema.nullable().optional(),
    checked_verdict: verdict.nullable().optional(),
    checked_mismatch: z.boolean().describe("the content contradicts one of the client's claims"),
  })
  .meta({ id: "Pass" });

export const integrityFindingSchema = z
  .object({
    kind: z
      .enum([
        "hash_mismatch",
        "missing_pass",
        "repeated_pass",
        "continued_after_halt",
        "restore_not_honoured",
      ] satisfies IntegrityKind[])
      .describe(
        "missing_pass: passes never received before this one; repeated_pass: a pass number seen twice; hash_mismatch: the input hash is not the previous pass's output hash; continued_after_halt: the first pass above the chain's halt point (a halt boundary or an unanswered HALT directive); restore_not_honoured: after a restore boundary, the input hash is not the restored pass's output hash.",
      ),
    pass_id: z.string(),
    pass_number: count,
    detail: z.string(),
  })
  .meta({ id: "IntegrityFinding" });

export const chainStatusSchema = z.enum(CHAIN_STATUSES);

export const chainSummarySchema = z
  .object({
    chain_id: z.string(),
    content_class: z.string(),
    pass_count: count,
    boundary_count: count,
    last_pass_id: z.string().nullable(),
    last_pass_number: count.nullable(),
    last_verdict: verdict.nullable(),
    collapse_point: collapsePointSchema.nullable(),
    statuses: z.array(chainStatusSchema),
    client_mismatches: count,
    checked_mismatches: count,
    integrity_findings: count,
    min_semantic_density: z.number().nullable(),
    min_size_bytes: count.nullable(),
    first_seen_at: timestamp,
    last_activity_at: timestamp,
    service_name: z.string().nullable().optional(),
  })
  .meta({ id: "ChainSummary" });

export const chainDetailSchema = z
  .object({
    chain_id: z.string(),
    content_class: z.string(),
    passes: z.array(passWireSchema),
    boundaries: z.array(boundaryWireSchema),
    collapse_point: collapsePointSchema.nullable(),
    integrity: z.array(integrityFindingSchema),
    client_mismatches: count,
    checked_mismatches: count,
    service_name: z.string().nullable().optional(),
  })
  .meta({ id: "Chain" });

// ---------------------------------------------------------------------------------------
// Policies

const floorShape = {
  min_size_bytes: count,
  min_semantic_density: z.number().min(0).max(1),
  max_pass_number: count,
};

export const policyWireSchema = z
  .object({
    content_class: z.string(),
    version: count.describe("0 for the built-in conservative default"),
    ...floorShape,
    required_fields: z.array(z.string()),
    description: z.string().nullable(),
    created_at: timestamp.nullable(),
    format: z.enum(["json", "base64", "text", "any"]).optional(),
    decoded_format: z
      .enum(["json", "text", "any"])
      .nullable()
      .describe("with format base64: what the decoded bytes must be"),
    retention_days: count
      .nullable()
      .optional()
      .describe("days this class's chains are kept after their last activity; null follows FLOORLINE_RETENTION_DAYS"),
    note: z.string().nullable().describe("why the floor changed; kept with the version"),
    created_by: z.string().nullable().optional().describe("the operator or key that saved this version"),
  })
  .meta({ id: "Policy" });

export const policyListSchema = listOf(policyWireSchema).extend({
  default_policy: z.object({ ...floorShape, version: z.literal(0) }),
});

export const policyWithVersionsSchema = policyWireSchema.extend({ versions: z.array(policyWireSchema) });

// ---------------------------------------------------------------------------------------
// Cached originals

const originalStatus = z.enum(["live", "evicted", "expired"]);

export const originalSummarySchema = z
  .object({
    hash: z.string(),
    status: originalStatus,
    size_bytes: count,
    compressed_size_bytes: count.nullable(),
    content_type: z.string().nullable(),
    tool_name: z.string().nullable(),
    chain_id: z.string().nullable(),
    pass_id: z.string().nullable(),
    original_items: count.nullable(),
    compressed_items: count.nullable(),
    original_tokens: count.nullable(),
    compressed_tokens: count.nullable(),
    tokens_saved: z.int().nullable(),
    retrieval_tokens: count,
    tokens_estimated: z.boolean(),
    ttl_seconds: count.nullable(),
    created_at: timestamp,
    expires_at: timestamp.nullable(),
    last_retrieved_at: timestamp.nullable(),
    retrieval_count: count,
    store_count: count,
    gone_at: timestamp.nullable(),
    gone_reason: z.string().nullable(),
  })
  .meta({ id: "OriginalSummary" });

export const retrievedOriginalSchema = originalSummarySchema.extend({ original: z.string() }).meta({ id: "Original" });

export const storeResultSchema = z
  .object({
    hash: z.string(),
    size_bytes: count,
    marker: z.string(),
    marker_hash: z.string(),
    deduplicated: z.boolean(),
    status: z.literal("live"),
    content_type: z.string().nullable(),
    expires_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: "StoreResult" });

const ccrTotals = z.object({
  stored: count,
  stored_bytes: count,
  deduplicated: count,
  retrieved: count,
  retrieved_bytes: count,
  misses: z.object({ unknown: count, evicted: count, expired: count, ambiguous: count, total: count }),
  evictions: count,
  evicted_bytes: count,
  expiries: count,
  expired_bytes: count,
  hit_rate: z.number().nullable(),
  tokens: z.object({
    saved_gross: z.number(),
    respent: z.number(),
    net: z.number(),
    respent_share: z.number().nullable(),
  }),
});

export const originalStatsSchema = z
  .object({
    config: z.object({
      max_bytes: count,
      default_ttl_seconds: count.nullable(),
      max_original_bytes: count,
      min_prefix_length: count,
    }),
    store: z.object({
      live_count: count,
      live_bytes: count,
      evicted_count: count,
      expired_count: count,
      budget_used: z.number(),
    }),
    totals: ccrTotals,
    hourly: z.array(ccrTotals.extend({ hour: timestamp })),
  })
  .meta({ id: "OriginalStats" });

/** `/originals/{hash}/content?offset=`: a slice of a stored text for the detail page. */
export const textSliceSchema = z.looseObject({ text: z.string() });

// ---------------------------------------------------------------------------------------
// Traces

export const bindingConclusionSchema = z
  .object({ axiom: z.string(), proof_receipt: z.string(), invalidated_paths: z.array(z.string()) })
  .meta({ id: "BindingConclusion" });

export const compressedResidualSchema = z
  .object({
    conclusions: z.array(bindingConclusionSchema),
    eviction_boundary_index: z.int(),
    residual_digest: z.string(),
  })
  .meta({ id: "CompressedResidual" });

const traceShape = {
  trace_id: z.string(),
  chain_id: z.string().nullable(),
  conclusions: z.array(bindingConclusionSchema),
  eviction_boundary_index: z.int(),
  residual_digest: z.string(),
  client_residual_digest: z.string().nullable(),
  digest_mismatch: z.boolean(),
  invalidated_paths: z.array(z.string()),
  node_count: count,
  pruned_chatter_count: count,
  omitted_falsified_paths: count,
  created_at: timestamp,
};

export const traceWireSchema = z
  .object({
    ...traceShape,
    nodes: z
      .array(
        z.object({
          node_id: z.string(),
          node_type: z.enum(NODE_TYPES),
          content: z.string(),
          verification_receipt: z.string().nullable().optional(),
        }),
      )
      .nullable(),
  })
  .meta({ id: "Trace" });

export const traceSummarySchema = z
  .object({
    ...traceShape,
    axioms: z.array(z.string()),
    axiom_count: count,
    invalidation_count: count,
    nodes_kept: z.boolean(),
  })
  .meta({ id: "TraceSummary" });

export const traceRejectionSchema = z
  .object({
    id: z.int(),
    trace_id: z.string().nullable(),
    chain_id: z.string().nullable(),
    node_id: z.string(),
    node_index: count,
    node_type: z
      .string()
      .nullable()
      .describe("the refused node's type (null for refusals recorded before it was kept)"),
    content: z
      .string()
      .nullable()
      .describe(
        `the refused node's content, its first ${REJECTED_CONTENT_MAX_BYTES} UTF-8 bytes cut on a character boundary`,
      ),
    content_bytes: count.nullable().describe("the content's full size in UTF-8 bytes"),
    content_truncated: z.boolean().describe("`content` is only the first part"),
    reason: z.string().nullable().describe("why it was refused: the 422's message"),
    created_at: timestamp,
  })
  .meta({ id: "TraceRejection" });

export const traceRejectionListSchema = listOf(traceRejectionSchema).extend({ total: count });

// ---------------------------------------------------------------------------------------
// Health

export const healthSchema = z.object({ status: z.literal("ok"), database: z.literal("ok") }).meta({ id: "Health" });

const outcomeShape = {
  failures_caught: count,
  failures_missed: count,
  healthy_halted_early: count,
  compression_kept: z.number().min(0).max(1),
};

export const recommendationSchema = z
  .object({
    content_class: z.string(),
    based_on: z.object({ chains: count, healthy: count, failures: count, passes: count }),
    current: z.object({ version: count, policy: z.object(floorShape), ...outcomeShape }),
    options: z.array(z.object({ name: z.string(), policy: z.object(floorShape), ...outcomeShape })),
  })
  .meta({ id: "FloorRecommendation" });

/** OTLP's ExportTraceServiceResponse in its JSON encoding (an empty object when every span was taken). */
export const otlpExportResponseSchema = z
  .object({
    partialSuccess: z
      .object({
        rejectedSpans: z.string().describe("an int64, as OTLP/JSON writes it"),
        errorMessage: z.string(),
      })
      .optional(),
  })
  .meta({ id: "OtlpExportTraceServiceResponse" });

// ---------------------------------------------------------------------------------------
// Access: API keys, operators, sessions

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(KEY_SCOPES)),
    created_at: timestamp,
    created_by: z.string().nullable(),
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
  })
  .meta({ id: "ApiKey" });

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe("the full key, `fl_<id>_<secret>`: shown in this answer only") })
  .meta({ id: "CreatedApiKey" });

export const operatorSchema = z
  .object({
    id: z.int().min(1),
    name: z.string(),
    role: z.enum(ROLES),
    created_at: timestamp,
    disabled_at: timestamp.nullable(),
  })
  .meta({ id: "Operator" });

const signedInOperator = z.object({ id: z.int().min(1), name: z.string(), role: z.enum(ROLES) });

export const sessionSchema = z
  .object({
    auth: z.boolean().describe("whether this server asks for credentials"),
    operator: signedInOperator.nullable().describe("the operator signed in with this request's cookie"),
  })
  .meta({ id: "Session" });

export const signedInSchema = z.object({ operator: signedInOperator }).meta({ id: "SignedIn" });
