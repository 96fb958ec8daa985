import { z } from "zod";
import { cursorPart } from "../http/cursor";
import { limitSchema } from "../http/list";
import { CONTENT_FORMATS, DECODED_FORMATS, DEFAULT_CONTENT_FORMAT, DENSITY_SOURCES } from "../content-checks/formats";
import { listOf, nonNegativeInt, requiredFieldsSchema, text, unitInterval, utcTimestamp } from "./common";

export const policyBodySchema = z.object({
  min_size_bytes: nonNegativeInt,
  min_semantic_density: unitInterval,
  max_pass_number: nonNegativeInt,
  required_fields: requiredFieldsSchema.default([]),
  description: text({ max: 2048 }).nullish(),
  /** How the server parses receipt content (server-side content checks). */
  format: z.enum(CONTENT_FORMATS).default(DEFAULT_CONTENT_FORMAT),
  /** With format base64: what the decoded bytes must be. Absent means any. */
  decoded_format: z.enum(DECODED_FORMATS).nullish(),
  /**
   * Whose density the chain follows: `client` (the claim) or `measured` (the server's own,
   * wherever it measured the pass). The reference verdict stays on the claims either way.
   * Absent keeps what the version in force says (`client` for a new class), so a floor saved
   * by a client that does not know the field never turns measurement off.
   */
  density_source: z.enum(DENSITY_SOURCES).optional(),
  /**
   * Days this class's chains are kept after their last activity, instead of the server-wide
   * FLOORLINE_RETENTION_DAYS. Null follows the server-wide setting; absent keeps what the
   * version in force says, so a floor saved without it never drops it.
   */
  retention_days: z.number().int().min(1).max(36_500).nullish(),
  /**
   * The share of a chain's planted canaries its passes must keep (docs/canaries.md): a pass
   * below it is a canary_lost finding. Null: no floor; absent keeps the version in force's.
   */
  min_canary_retention: unitInterval.nullish(),
  /** Why the floor changes; kept with the version, not part of the floor itself. */
  note: text({ max: 2048 }).nullish(),
});
export type PolicyBody = z.infer<typeof policyBodySchema>;

export const policyListQuerySchema = z.object({ cursor: z.string().optional(), limit: limitSchema });
/** Policies are listed by content class: the cursor is the last class shown. */
export const policyCursorSchema = z.tuple([cursorPart.text]);

// ---------------------------------------------------------------------------------------
// Answers

const count = nonNegativeInt;

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
    created_at: utcTimestamp.nullable(),
    format: z.enum(CONTENT_FORMATS).optional(),
    decoded_format: z.enum(DECODED_FORMATS).nullable().describe("with format base64: what the decoded bytes must be"),
    density_source: z
      .enum(DENSITY_SOURCES)
      .optional()
      .describe(
        "client: the chain's collapse point, status, metrics and webhooks follow the verdict on the client's claims; measured: they follow checked_verdict wherever the server measured the pass",
      ),
    retention_days: count
      .nullable()
      .optional()
      .describe("days this class's chains are kept after their last activity; null follows FLOORLINE_RETENTION_DAYS"),
    min_canary_retention: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .optional()
      .describe("the share of a chain's planted canaries its passes must keep; below it, a canary_lost finding"),
    note: z.string().nullable().describe("why the floor changed; kept with the version"),
    created_by: z.string().nullable().optional().describe("the operator or key that saved this version"),
  })
  .meta({ id: "Policy" });

export const policyListSchema = listOf(policyWireSchema).extend({
  default_policy: z.object({ ...floorShape, version: z.literal(0) }),
});

export const policyWithVersionsSchema = policyWireSchema.extend({ versions: z.array(policyWireSchema) });

const outcomeShape = {
  failures_caught: count,
  failures_missed: count,
  healthy_halted_early: count.describe(
    "healthy and guarded chains the floor would have stopped before their end (a guarded chain ends at the floor the guard stopped it at)",
  ),
  compression_kept: z
    .number()
    .min(0)
    .max(1)
    .describe(
      "over healthy and guarded chains, bytes saved up to where the floor stops them over bytes saved as recorded",
    ),
};

export const recommendationSchema = z
  .object({
    content_class: z.string(),
    based_on: z.object({
      chains: count.describe("healthy + guarded + failures"),
      healthy: count,
      guarded: count.describe(
        "chains whose guard reached a floor and whose agent obeyed through a boundary (status `guarded`): saves, not failures",
      ),
      failures: count.describe(
        "chains with a pass unparseable or schema-invalid, or a restore or accept_loss boundary, that are not guarded",
      ),
      passes: count,
    }),
    current: z.object({ version: count, policy: z.object(floorShape), ...outcomeShape }),
    options: z.array(z.object({ name: z.string(), policy: z.object(floorShape), ...outcomeShape })),
  })
  .meta({ id: "FloorRecommendation" });
