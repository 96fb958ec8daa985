import { bigint, bigserial, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * Passes stored but not yet folded into their chain's summary row (`chains`), the roll-ups
 * and the outbox: one row per chain per ingest, written in the ingest's transaction and
 * taken by the summariser (db/ingest/summaries.ts) in its own. Keyed by chain first, so it
 * distributes with the other tables by `chain_id`.
 */
export const summaryQueue = pgTable(
  "summary_queue",
  {
    chainId: text("chain_id").notNull(),
    id: bigserial("id", { mode: "number" }).notNull(),
    /** The `passes.id` of the passes this ingest added to the chain. */
    passIds: bigint("pass_ids", { mode: "number" }).array().notNull(),
    /** The OpenTelemetry `service.name` the chain's receipts came with, if any. */
    serviceName: text("service_name"),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.id] })],
);
