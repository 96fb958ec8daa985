import { ingestBoundaries } from "@/db/ingest/boundaries";
import { readJson } from "@/lib/http/body";
import { BATCH_ANSWER_HEADERS, json, serve } from "@/app/_access/api-route";
import { INGEST_ROUTES } from "@/lib/routes/ingest";
import { boundaryReceiptsOf } from "@/lib/schemas/boundaries";

export const { GET, POST, PUT, PATCH, DELETE } = serve(INGEST_ROUTES.boundaries, {
  POST: async (request) => {
    const { items, batch } = boundaryReceiptsOf(await readJson(request));
    const { results, created } = await ingestBoundaries(items);
    return json(batch ? { results } : results[0], created > 0 ? 201 : 200, BATCH_ANSWER_HEADERS);
  },
});
