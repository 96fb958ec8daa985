// Headroom's `GET /v1/retrieve/{hash}` (its OpenClaw plugin and SDK use it).
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { RETRIEVAL_HEADERS } from "@/lib/originals/rules";
import { serve } from "@/app/_access/api-route";
import { parseHeadroom } from "@/lib/originals/headroom/http";
import { headroomRetrieveBody } from "@/lib/originals/headroom/retrieve";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { headroomKeySchema } from "@/lib/schemas/headroom";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.headroomRetrieveByPath, {
  GET: async (_request, context) => {
    // Headroom answers a key it cannot hold as a miss; the reason is kept in `detail`.
    const key = parseHeadroom(headroomKeySchema, (await context.params).hash, { status: 404 });
    if (key instanceof Response) return key;
    return Response.json(headroomRetrieveBody(key, await retrieveOriginal(key)), {
      headers: RETRIEVAL_HEADERS,
    });
  },
});
