// The overview's URL state: the time range the figures and the collapse-rate chart cover.
import { z } from "zod";
import { DEFAULT_RANGE, RANGE_KEYS, type RangeKey } from "@/lib/chains/overview";

export const overviewParamsSchema = z.object({
  range: z
    .enum(RANGE_KEYS as [RangeKey, ...RangeKey[]])
    .default(DEFAULT_RANGE)
    .catch(DEFAULT_RANGE),
});
export type OverviewParams = z.infer<typeof overviewParamsSchema>;
