import { getOriginalStats } from "@/db/queries/originals/stats";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { originalStatsQuerySchema } from "@/lib/schemas/originals";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.stats, {
  GET: async (request) => {
    const { hours } = parseSearchParams(request.url, originalStatsQuerySchema);
    return json(await getOriginalStats(hours));
  },
});
