import { doublePrecision, integer, jsonb, pgTable, serial, text, unique } from "drizzle-orm/pg-core";
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
    description: text("description"),
    createdAt: createdAt(),
  },
  (t) => [unique("policies_class_version_key").on(t.contentClass, t.version)],
);
