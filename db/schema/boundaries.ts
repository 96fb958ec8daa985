import { bigserial, jsonb, pgTable, text, unique } from "drizzle-orm/pg-core";
import { createdAt, safeBigint } from "./columns";
import type { BoundaryStrategy } from "@/lib/schemas/boundaries";

/** Where further compression would collapse, and what the agent did about it. */
export const boundaries = pgTable(
  "boundaries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    chainId: text("chain_id").notNull(),
    passNumber: safeBigint("pass_number").notNull(),
    strategy: text("strategy").$type<BoundaryStrategy>().notNull(),
    reason: text("reason").notNull(),
    restorePassId: text("restore_pass_id"),
    relaxedPolicy: jsonb("relaxed_policy").$type<Record<string, unknown>>(),
    bodyDigest: text("body_digest").notNull(),
    createdAt: createdAt(),
  },
  (t) => [unique("boundaries_chain_pass_number_key").on(t.chainId, t.passNumber)],
);
