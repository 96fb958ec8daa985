import { countOriginals } from "@/db/queries/originals/browse";
import { parseSearchParams } from "@/lib/http/list";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { originalCountQuerySchema } from "@/lib/schemas/originals";

/** How many entries the list's filters match (a tenant's live entries, say) and their bytes. */
export const GET = route("/api/v1/originals/count", async (request) => {
  return json(await countOriginals(parseSearchParams(request.url, originalCountQuerySchema)));
});

const notAllowed = methodNotAllowed("/api/v1/originals/count");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
