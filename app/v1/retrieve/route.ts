// Headroom's `POST /v1/retrieve` (its MCP server and plugins call it with their proxy URL).
import { retrieveOriginal } from "@/db/queries/originals-retrieve";
import { RETRIEVAL_HEADERS } from "@/lib/ccr/rules";
import { readJson } from "@/lib/http/body";
import { route } from "@/app/_access/api-route";
import { detail, headroom, headroomMethodNotAllowed } from "@/lib/headroom/http";
import { headroomRetrieveBody } from "@/lib/headroom/retrieve";
import { parseRetrieveKey } from "@/lib/headroom/shapes";

export const POST = route(
  "/v1/retrieve",
  headroom(async (request) => {
    const body = await readJson(request);
    const key = parseRetrieveKey(
      typeof body === "object" && body !== null ? (body as { hash?: unknown }).hash : undefined,
    );
    if (!key.ok) return detail(400, key.detail);
    return Response.json(headroomRetrieveBody(key.key, await retrieveOriginal(key.key)), {
      headers: RETRIEVAL_HEADERS,
    });
  }),
);

const notAllowed = headroomMethodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
