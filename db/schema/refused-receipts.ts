import { bigserial, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { safeBigint, timestampMs } from "./columns";

/**
 * Pass receipts the API refused (docs/ingest.md, "Refused receipts"), by the chain they name, so
 * that the chain page can say what never arrived and why. Written beside the refusal, never in
 * its transaction (the refusal changes nothing else); bounded per request, per chain and in age
 * (db/queries/refused-receipts.ts).
 */
export const refusedReceipts = pgTable(
  "refused_receipts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    chainId: text("chain_id").notNull(),
    passId: text("pass_id"),
    passNumber: safeBigint("pass_number"),
    /** The answer's status and error code. */
    status: integer("status").notNull(),
    code: text("code").notNull(),
    /** The answer's message, and the first issue that names this receipt (`path: message`), if any. */
    reason: text("reason").notNull(),
    issue: text("issue"),
    receivedAt: timestampMs("received_at").notNull().defaultNow(),
  },
  (t) => [
    index("refused_receipts_chain_idx").on(t.chainId, t.receivedAt, t.id),
    index("refused_receipts_received_idx").on(t.receivedAt),
  ],
);
