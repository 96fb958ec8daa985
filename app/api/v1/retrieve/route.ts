import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { retrievalResponse } from "@/lib/originals/content-cache";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { retrieveRequestSchema } from "@/lib/schemas/originals";

/** The `headroom_retrieve` tool call: `{"hash": "<key from the compression marker>"}`. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.retrieve, {
  POST: async (request) => {
    const { hash, tenant } = parseBody(await readJson(request), retrieveRequestSchema);
    return retrievalResponse(await retrieveOriginal(hash, { tenant }));
  },
});
