import { countOriginals } from "@/db/queries/originals/browse";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { originalCountQuerySchema } from "@/lib/schemas/originals";

/** How many entries the list's filters match (a tenant's live entries, say) and their bytes. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.count, {
  GET: async (request) => {
    return json(await countOriginals(parseSearchParams(request.url, originalCountQuerySchema)));
  },
});
