import { z } from "zod";
import { parseOneOrBatch } from "../http/batch";
import { chainIdSchema, jsonObject, nonNegativeInt, nullMeansAbsent, text, utcTimestamp } from "./common";

export const BOUNDARY_STRATEGIES = ["halt", "restore", "accept_loss"] as const;
export type BoundaryStrategy = (typeof BOUNDARY_STRATEGIES)[number];

export const MAX_BOUNDARY_BATCH = 5_000;

export const boundaryReceiptSchema = nullMeansAbsent(
  ["restore_pass_id", "relaxed_policy"],
  z
    .object({
      chain_id: chainIdSchema,
      pass_number: nonNegativeInt,
      strategy: z.enum(BOUNDARY_STRATEGIES),
      reason: text({ min: 1, max: 4096 }),
      restore_pass_id: text({ min: 1, max: 256 }).nullish(),
      relaxed_policy: jsonObject(16 * 1024).nullish(),
    })
    .superRefine((b, ctx) => {
      if (b.strategy === "restore" && !b.restore_pass_id) {
        ctx.addIssue({ code: "custom", path: ["restore_pass_id"], message: "is required when strategy is 'restore'" });
      }
    }),
);
export type BoundaryReceipt = z.infer<typeof boundaryReceiptSchema>;

export const boundaryWireSchema = z
  .object({
    chain_id: z.string(),
    pass_number: nonNegativeInt,
    strategy: z.enum(BOUNDARY_STRATEGIES),
    reason: z.string(),
    restore_pass_id: z.string().nullable(),
    relaxed_policy: z.record(z.string(), z.unknown()).nullable(),
    created_at: utcTimestamp,
  })
  .meta({ id: "Boundary" });
export type BoundaryWire = z.infer<typeof boundaryWireSchema>;

/** A body of `POST /api/v1/boundaries` as the route reads it: one receipt or a batch. Throws ApiError. */
export function boundaryReceiptsOf(body: unknown): { items: BoundaryReceipt[]; batch: boolean } {
  return parseOneOrBatch(body, boundaryReceiptSchema, "boundaries", MAX_BOUNDARY_BATCH);
}
