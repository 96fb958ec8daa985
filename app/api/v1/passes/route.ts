import { ingestPasses } from "@/db/ingest/passes";
import { recordRefusedReceipts } from "@/db/queries/refused-receipts";
import { mayReadOriginals } from "@/lib/auth/access";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";
import { BATCH_ANSWER_HEADERS, json, serve } from "@/app/_access/api-route";
import { INGEST_ROUTES } from "@/lib/routes/ingest";
import { passReceiptsOf } from "@/lib/schemas/passes";

export const { GET, POST, PUT, PATCH, DELETE } = serve(INGEST_ROUTES.passes, {
  POST: async (request, _context, principal) => {
    const body = await readJson(request);
    try {
      const { items, batch } = passReceiptsOf(body);
      const { results, created } = await ingestPasses(items, { readsOriginals: mayReadOriginals(principal) });
      return json(batch ? { results } : results[0], created > 0 ? 201 : 200, BATCH_ANSWER_HEADERS);
    } catch (error) {
      // What was refused, and why, by the chain it names: the chain page lists it.
      if (error instanceof ApiError) await recordRefusedReceipts(body, error);
      throw error;
    }
  },
});
