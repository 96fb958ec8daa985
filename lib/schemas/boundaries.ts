import { z } from "zod";
import { BOUNDARY_STRATEGIES } from "@/lib/chains/types";
import { chainIdSchema, jsonObject, nonNegativeInt, nullMeansAbsent, text } from "./common";

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
