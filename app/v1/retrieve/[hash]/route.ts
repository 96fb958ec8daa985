// Headroom's `GET /v1/retrieve/{hash}` (its OpenClaw plugin and SDK use it).
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { RETRIEVAL_HEADERS } from "@/lib/originals/rules";
import { route } from "@/app/_access/api-route";
import { headroom, headroomMethodNotAllowed, parseHeadroom } from "@/lib/originals/headroom/http";
import { headroomRetrieveBody } from "@/lib/originals/headroom/retrieve";
import { headroomKeySchema } from "@/lib/schemas/headroom";

export const GET = route(
  "/v1/retrieve/{hash}",
  headroom(async (_request, context: { params: Promise<{ hash: string }> }) => {
    // Headroom answers a key it cannot hold as a miss; the reason is kept in `detail`.
    const key = parseHeadroom(headroomKeySchema, (await context.params).hash, { status: 404 });
    if (key instanceof Response) return key;
    return Response.json(headroomRetrieveBody(key, await retrieveOriginal(key)), {
      headers: RETRIEVAL_HEADERS,
    });
  }),
);

const notAllowed = headroomMethodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
