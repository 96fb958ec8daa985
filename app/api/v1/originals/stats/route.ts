import { getOriginalStats } from "@/db/queries/originals/stats";
import { parseSearchParams } from "@/lib/http/list";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { originalStatsQuerySchema } from "@/lib/schemas/originals";

export const GET = route("/api/v1/originals/stats", async (request) => {
  const { hours } = parseSearchParams(request.url, originalStatsQuerySchema);
  return json(await getOriginalStats(hours));
});

const notAllowed = methodNotAllowed("/api/v1/originals/stats");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
