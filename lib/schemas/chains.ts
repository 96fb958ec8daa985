import { z } from "zod";
import { limitSchema } from "../http/list";
import { contentClassSchema } from "./common";

export const chainListQuerySchema = z.object({
  status: z.enum(["healthy", "collapse_imminent", "floor_breached", "client_mismatch", "broken_integrity"]).optional(),
  content_class: contentClassSchema.optional(),
  q: z.string().max(256).optional(),
  sort: z.enum(["last_activity", "pass_count", "min_density", "min_size"]).default("last_activity"),
  order: z.enum(["asc", "desc"]).optional(),
  cursor: z.string().optional(),
  limit: limitSchema,
});
export type ChainListQuery = Omit<z.infer<typeof chainListQuerySchema>, "order" | "cursor"> & { order: "asc" | "desc" };

/** Lowest density and smallest size read best ascending; activity and pass counts descending. */
export function defaultOrder(sort: ChainListQuery["sort"]): "asc" | "desc" {
  return sort === "min_density" || sort === "min_size" ? "asc" : "desc";
}
