import { getOriginalStats } from "@/db/queries/originals";
import { parseSearchParams } from "@/lib/http/list";
import { json, route } from "@/lib/http/route";
import { originalStatsQuerySchema } from "@/lib/schemas/originals";

export const GET = route(async (request) => {
  const { hours } = parseSearchParams(request.url, originalStatsQuerySchema);
  return json(await getOriginalStats(hours));
});
