// URL state of a chain's Facts tab: the API's filters (fate, q) and a keyset position by rank.
// A bad value falls back rather than failing the page.
import { z } from "zod";
import { FACT_FATES } from "@/lib/schemas/facts";

const rank = z.coerce.number().int().min(0).max(2_147_483_647).optional().catch(undefined);

export const factsPageParamsSchema = z.object({
  fate: z.enum(FACT_FATES).optional().catch(undefined),
  q: z
    .string()
    .max(256)
    .optional()
    .transform((v) => v?.trim() || undefined)
    .catch(undefined),
  after: rank,
  before: rank,
});
export type FactsPageParams = z.infer<typeof factsPageParamsSchema>;

/** Facts on one page of the tab. */
export const FACTS_PAGE_SIZE = 50;
