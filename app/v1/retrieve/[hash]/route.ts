// Headroom's `GET /v1/retrieve/{hash}` (its OpenClaw plugin and SDK use it).
import { retrieveOriginal } from "@/db/queries/originals-retrieve";
import { RETRIEVAL_HEADERS } from "@/lib/ccr/rules";
import { route } from "@/app/_access/api-route";
import { detail, headroom, headroomMethodNotAllowed } from "@/lib/headroom/http";
import { headroomRetrieveBody } from "@/lib/headroom/retrieve";
import { parseRetrieveKey } from "@/lib/headroom/shapes";

export const GET = route(
  "/v1/retrieve/{hash}",
  headroom(async (_request, context: { params: Promise<{ hash: string }> }) => {
    const { hash } = await context.params;
    const key = parseRetrieveKey(hash);
    // Headroom answers a key it cannot hold as a miss; the reason is kept in `detail`.
    if (!key.ok) return detail(404, key.detail);
    return Response.json(headroomRetrieveBody(key.key, await retrieveOriginal(key.key)), {
      headers: RETRIEVAL_HEADERS,
    });
  }),
);

const notAllowed = headroomMethodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
