import { bigint, doublePrecision, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestampMs } from "./columns";
import { passes } from "./passes";

/**
 * A pass measured again, by the method of the day, from its chain's kept source and its cached
 * content (docs/measurement.md, "Re-measuring a class"). Kept beside the answer the pass got on
 * ingest, which does not change, so that an operator can compare the two methods on their own
 * data before switching a class to measured density. One row per pass and method; it goes with
 * its pass.
 */
export const remeasurements = pgTable(
  "remeasurements",
  {
    passRowId: bigint("pass_row_id", { mode: "number" })
      .notNull()
      .references(() => passes.id, { onDelete: "cascade" }),
    method: text("method").notNull(),
    semanticDensityScore: doublePrecision("semantic_density_score").notNull(),
    components: jsonb("components").$type<Record<string, number>>().notNull(),
    facts: jsonb("facts").$type<Record<string, number> | null>(),
    lostExamples: jsonb("lost_examples").$type<string[]>().notNull(),
    measuredAt: timestampMs("measured_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "remeasurements_pkey", columns: [t.passRowId, t.method] })],
);
