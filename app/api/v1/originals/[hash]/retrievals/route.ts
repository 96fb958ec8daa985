import { notStoredError, recordClientRetrieval } from "@/db/queries/originals/retrieve";
import { mayReadOriginals } from "@/lib/auth/access";
import { RETRIEVAL_HEADERS } from "@/lib/originals/rules";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { recordRetrievalSchema } from "@/lib/schemas/originals";

/**
 * A retrieval the client served itself from a peek: counted and refreshing recency as a
 * retrieval here is, answered with the entry's summary (no text). A miss is answered and
 * counted as a retrieval's. The summary, the metadata and the prefix's resolution are the
 * original's: a caller who may not read it gets the answer of a key never stored, and
 * nothing is counted or written.
 */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.retrievals, {
  POST: async (request, { params }, principal) => {
    const { hash } = await params;
    const { tenant, metadata } = parseBody(await readJson(request), recordRetrievalSchema);
    if (!mayReadOriginals(principal)) throw notStoredError(hash);
    return json(
      await recordClientRetrieval(hash, metadata ?? null, { tenant: tenant ?? undefined }),
      200,
      RETRIEVAL_HEADERS,
    );
  },
});
