// Schema shapes the route declarations share.
import { z } from "zod";

/** One item, or `{ [key]: [...] }` with up to `max` of them: how the ingest endpoints take batches. */
export function oneOrBatch(item: z.ZodType, key: string, max: number) {
  return z.union([item, z.object({ [key]: z.array(item).min(1).max(max) })]);
}

export const results = (item: z.ZodType) => z.union([item, z.object({ results: z.array(item) })]);

export const plainText = { "text/plain": { schema: { type: "string" } } };
