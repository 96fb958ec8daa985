import { ingestBoundaries } from "@/db/ingest/boundaries";
import { readJson } from "@/lib/http/body";
import { BATCH_ANSWER_HEADERS, json, methodNotAllowed, route } from "@/app/_access/api-route";
import { boundaryReceiptsOf } from "@/lib/schemas/boundaries";

export const POST = route("/api/v1/boundaries", async (request) => {
  const { items, batch } = boundaryReceiptsOf(await readJson(request));
  const { results, created } = await ingestBoundaries(items);
  return json(batch ? { results } : results[0], created > 0 ? 201 : 200, BATCH_ANSWER_HEADERS);
});

const notAllowed = methodNotAllowed("/api/v1/boundaries");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
