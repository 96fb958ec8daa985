// Headroom's `POST /v1/retrieve` (its MCP server and plugins call it with their proxy URL).
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { RETRIEVAL_HEADERS } from "@/lib/originals/rules";
import { readJson } from "@/lib/http/body";
import { route } from "@/app/_access/api-route";
import { headroom, headroomMethodNotAllowed, parseHeadroom } from "@/lib/originals/headroom/http";
import { headroomRetrieveBody } from "@/lib/originals/headroom/retrieve";
import { headroomRetrieveRequestSchema } from "@/lib/schemas/headroom";

export const POST = route(
  "/v1/retrieve",
  headroom(async (request) => {
    const body = parseHeadroom(headroomRetrieveRequestSchema, await readJson(request), { body: true });
    if (body instanceof Response) return body;
    return Response.json(headroomRetrieveBody(body.hash, await retrieveOriginal(body.hash)), {
      headers: RETRIEVAL_HEADERS,
    });
  }),
);

const notAllowed = headroomMethodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
