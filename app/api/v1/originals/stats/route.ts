import { getOriginalStats } from "@/db/queries/originals";
import { parseSearchParams } from "@/lib/http/list";
import { json, methodNotAllowed, route } from "@/lib/http/route";
import { originalStatsQuerySchema } from "@/lib/schemas/originals";

export const GET = route(async (request) => {
  const { hours } = parseSearchParams(request.url, originalStatsQuerySchema);
  return json(await getOriginalStats(hours));
});

const notAllowed = methodNotAllowed(["GET"]);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
