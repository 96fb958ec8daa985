import { bigint, bigserial, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { timestampMs } from "./columns";

/**
 * Passes stored but not yet folded into their chains' summary rows (`chains`), the roll-ups
 * and the outbox: one row per ingest, written in the ingest's transaction and taken by the
 * summariser (db/ingest/summaries.ts) in its own. Short-lived and small: a few rows while
 * ingest runs, none at rest.
 */
export const summaryQueue = pgTable("summary_queue", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  /** The chains the ingest added passes to. */
  chainIds: text("chain_ids").array().notNull(),
  /** The `passes.id` of the passes it added. */
  passIds: bigint("pass_ids", { mode: "number" }).array().notNull(),
  /** chain_id → the OpenTelemetry `service.name` its receipts came with, when any did. */
  serviceNames: jsonb("service_names").$type<Record<string, string>>(),
  /** When the ingest queued it: the age of the oldest row is a gauge on /metrics. */
  queuedAt: timestampMs("queued_at").notNull().defaultNow(),
});
