import { doublePrecision, integer, jsonb, pgTable, serial, text, unique } from "drizzle-orm/pg-core";
import type { ContentFormat, DecodedFormat, DensitySource } from "@/lib/content-checks/formats";
import { createdAt, safeBigint } from "./columns";

/** Every change to a content class's floor is a new row; the highest version is in force. */
export const policies = pgTable(
  "policies",
  {
    id: serial("id").primaryKey(),
    contentClass: text("content_class").notNull(),
    version: integer("version").notNull(),
    minSizeBytes: safeBigint("min_size_bytes").notNull(),
    minSemanticDensity: doublePrecision("min_semantic_density").notNull(),
    maxPassNumber: safeBigint("max_pass_number").notNull(),
    requiredFields: jsonb("required_fields").$type<string[]>().notNull().default([]),
    /** How the server parses a receipt's content: json, base64, text or any. */
    format: text("format").$type<ContentFormat>().notNull().default("any"),
    /** For base64: what the decoded bytes must be (json, text, any); null means any. */
    decodedFormat: text("decoded_format").$type<DecodedFormat>(),
    /**
     * Whose density the chain follows: `client` (the claim) or `measured` (the server's
     * measurement wherever it has one). The reference verdict stays on the claims either way.
     */
    densitySource: text("density_source").$type<DensitySource>().notNull().default("client"),
    description: text("description"),
    /**
     * Days this class's chains are kept after their last activity, instead of
     * FLOORLINE_RETENTION_DAYS; null follows the server-wide setting.
     */
    retentionDays: integer("retention_days"),
    /** The share of a chain's planted canaries its passes must keep (docs/canaries.md); null: no floor. */
    minCanaryRetention: doublePrecision("min_canary_retention"),
    /** Why this version was saved: the change note asked for by every floor save. */
    note: text("note"),
    /** Who saved this version: the operator's name or `key:<name>`; null before access control, and with auth off. */
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [unique("policies_class_version_key").on(t.contentClass, t.version)],
);
