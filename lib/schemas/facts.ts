// The facts ledger on the wire (docs/facts.md): `GET /api/v1/chains/{id}/facts`.
import { z } from "zod";
import { cursorPart, decodeCursor } from "../http/cursor";
import { limitSchema } from "../http/list";
import { listOf } from "./common";

export const FACT_FATES = ["retained", "lost", "restored", "recoverable"] as const;
export type FactFate = (typeof FACT_FATES)[number];

const chainFactSchema = z
  .object({
    fact: z.string().describe("The fact as the chain's source states it."),
    kind: z.string().describe("A token's kind (`number`, `path`, `name`, …), `error_line` or `json_value`."),
    salience: z.number().min(0).max(1).describe("Its share of what the source's coverage weighs; the list's order."),
    fate: z.enum(FACT_FATES).describe("At the chain's latest pass folded into the ledger."),
    first_lost_pass: z.number().int().nullable().describe("The first pass that did not state it."),
    restored_at_pass: z.number().int().nullable().describe("The latest pass that stated it again after it was lost."),
    recoverable_from: z
      .string()
      .nullable()
      .describe("The key of the marker whose cached original states it, while the latest pass does not."),
  })
  .meta({ id: "ChainFact" });
export type ChainFact = z.infer<typeof chainFactSchema>;

export const chainFactPageSchema = listOf(chainFactSchema);

// An empty parameter is an unset filter: that is what a search form submits.
export const chainFactQuerySchema = z.object({
  fate: z
    .union([z.enum(FACT_FATES), z.literal("")])
    .optional()
    .transform((v) => (v ? v : undefined)),
  q: z
    .string()
    .max(256)
    .optional()
    .transform((v) => v?.trim() || undefined),
  cursor: z.string().optional(),
  limit: limitSchema,
});

/** A facts-page cursor: the last item's rank in the ledger. */
const factCursorSchema = z.tuple([cursorPart.int32]);
export function decodeFactCursor(cursor: string | undefined): number | undefined {
  return decodeCursor(cursor, factCursorSchema)?.[0];
}
