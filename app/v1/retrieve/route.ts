// Headroom's `POST /v1/retrieve` (its MCP server and plugins call it with their proxy URL).
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { RETRIEVAL_HEADERS } from "@/lib/originals/rules";
import { readJson } from "@/lib/http/body";
import { serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { parseHeadroom } from "@/lib/originals/headroom/http";
import { headroomRetrieveBody } from "@/lib/originals/headroom/retrieve";
import { headroomRetrieveRequestSchema } from "@/lib/schemas/headroom";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.headroomRetrieve, {
  POST: async (request) => {
    const body = parseHeadroom(headroomRetrieveRequestSchema, await readJson(request), { body: true });
    if (body instanceof Response) return body;
    return Response.json(headroomRetrieveBody(body.hash, await retrieveOriginal(body.hash)), {
      headers: RETRIEVAL_HEADERS,
    });
  },
});
