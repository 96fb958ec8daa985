import { sql } from "drizzle-orm";
import { bigserial, boolean, doublePrecision, index, integer, jsonb, pgTable, text, unique } from "drizzle-orm/pg-core";
import type { Canary } from "@/lib/canaries/canaries";
import type { ServerChecks } from "@/lib/content-checks/check-content";
import { safeBigint, timestampMs } from "./columns";

/** One compression-pass receipt with the server's own verdict on it. */
export const passes = pgTable(
  "passes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    chainId: text("chain_id").notNull(),
    passId: text("pass_id").notNull(),
    passNumber: safeBigint("pass_number").notNull(),
    inputContentHash: text("input_content_hash"),
    currentContentHash: text("current_content_hash").notNull(),
    currentSizeBytes: safeBigint("current_size_bytes").notNull(),
    isParseable: boolean("is_parseable").notNull(),
    schemaValid: boolean("schema_valid").notNull(),
    semanticDensityScore: doublePrecision("semantic_density_score").notNull(),
    contentClass: text("content_class").notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>(),
    clientVerdict: text("client_verdict"),
    clientManifestDigest: text("client_manifest_digest"),
    verdict: text("verdict").notNull(),
    directive: text("directive").notNull(),
    manifestDigest: text("manifest_digest").notNull(),
    policyVersion: integer("policy_version").notNull(),
    clientMismatch: boolean("client_mismatch").notNull(),
    /** What the server found in the receipt's content; null when it sent none. */
    serverChecks: jsonb("server_checks").$type<ServerChecks>(),
    /** The guard's verdict on the server's own findings; null without content. */
    checkedVerdict: text("checked_verdict"),
    /** The content contradicts a claim of the client (size, hash, parseable, schema valid). */
    checkedMismatch: boolean("checked_mismatch").notNull().default(false),
    /**
     * The server measured the pass (docs/measurement.md): its density from content against the
     * chain's source. Null when it could not; a column, beside server_checks, for the chart and
     * the floor recommendation.
     */
    measuredDensity: doublePrecision("measured_density"),
    /** The guard on the measured values and the guard on the client's claims disagree. */
    measurementMismatch: boolean("measurement_mismatch").notNull().default(false),
    /** The class measures density (`density_source: measured`) but the server could not measure this pass. */
    unmeasured: boolean("unmeasured").notNull().default(false),
    /**
     * The verdict the chain follows (its collapse point, status, roll-ups, metrics, webhooks):
     * `verdict`, or `checked_verdict` where the pass was measured under a policy whose
     * `density_source` is `measured`. `verdict` itself stays the reference's output on the claims.
     */
    effectiveVerdict: text("effective_verdict").notNull(),
    /**
     * Unparseable or schema-invalid, as the client claimed or as the server found: what the
     * floor recommendation calls a failure. Kept by the database itself, so the
     * recommendation's read of a class is an index-only scan of passes_class_chain_idx.
     */
    contentBroken: boolean("content_broken")
      .notNull()
      .generatedAlwaysAs(
        sql`not (is_parseable and schema_valid and coalesce((server_checks->>'parseable')::boolean and (server_checks->>'schema_valid')::boolean, true))`,
      ),
    /** Canaries planted in this pass's input (docs/canaries.md); null on every other pass. */
    canaries: jsonb("canaries").$type<Canary[]>(),
    /**
     * Ids of the chain's canaries (planted at or before this pass) that survive in its content,
     * as the server read it or as the receipt's canary_check says; null when neither is known.
     */
    canariesSurviving: jsonb("canaries_surviving").$type<string[]>(),
    /** Of the canaries planted by this pass, the share surviving; null with canaries_surviving. */
    canaryRetention: doublePrecision("canary_retention"),
    /** The tool names the agent's context offered when this pass's output was used (receipt's context_tools); null when not sent. */
    contextTools: jsonb("context_tools").$type<string[]>(),
    /** sha256 of the receipt as received: tells an idempotent retry from a conflicting one. */
    bodyDigest: text("body_digest").notNull(),
    createdAt: timestampMs("created_at").notNull(),
    receivedAt: timestampMs("received_at").notNull().defaultNow(),
  },
  (t) => [
    unique("passes_chain_pass_key").on(t.chainId, t.passId),
    index("passes_chain_number_idx").on(t.chainId, t.passNumber, t.id),
    // The floor recommendation reads every pass of a class, chain by chain in replay order,
    // from this index alone. The last three columns would be INCLUDE columns, which Drizzle
    // cannot declare; after the unique id they never take part in an order.
    index("passes_class_chain_idx").on(
      t.contentClass,
      t.chainId,
      t.passNumber,
      t.id,
      t.currentSizeBytes,
      t.semanticDensityScore,
      t.contentBroken,
      t.measuredDensity,
    ),
    index("passes_current_hash_idx").on(t.currentContentHash),
    // The ingest reads a chain's planted canaries; the chain page and overview its retention.
    index("passes_chain_canaries_idx").on(t.chainId, t.passNumber).where(sql`${t.canaries} is not null`),
    index("passes_chain_canary_retention_idx").on(t.chainId, t.passNumber).where(sql`${t.canaryRetention} is not null`),
    index("passes_input_hash_idx").on(t.inputContentHash),
    // The overview counts passes in a time range and lists the latest collapses.
    index("passes_created_idx").on(t.createdAt),
    index("passes_collapse_created_idx")
      .on(t.createdAt)
      .where(sql`${t.effectiveVerdict} in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')`),
  ],
);
