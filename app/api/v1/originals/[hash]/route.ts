import { deleteOriginal } from "@/db/queries/originals/delete";
import { peekOriginal, retrieveOriginal } from "@/db/queries/originals/retrieve";
import { RETRIEVAL_HEADERS } from "@/lib/originals/rules";
import { retrievalResponse, retrievalText } from "@/lib/originals/content-cache";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { originalDeleteQuerySchema, originalGetQuerySchema } from "@/lib/schemas/originals";

/** A client that asks for plain text (and not JSON) gets the bare original, as with `?raw=1`. */
function wantsRaw(request: Request, raw: boolean | undefined): boolean {
  if (raw !== undefined) return raw;
  const accept = request.headers.get("accept") ?? "";
  return accept.includes("text/plain") && !accept.includes("application/json");
}

// A retrieval like POST /retrieve: it refreshes recency and is counted. A peek is neither.

function textAnswer(found: { hash: string; original: string }): Response {
  return new Response(retrievalText(found), {
    headers: {
      ...RETRIEVAL_HEADERS,
      // Always text: stored content is never rendered as a page of this origin.
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "x-original-hash": found.hash,
    },
  });
}

/** Deletes this tenant's entry: it becomes a tombstone (evicted, deleted by a client). */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.detail, {
  GET: async (request, { params }) => {
    const { hash } = await params;
    const { raw, peek, tenant } = parseSearchParams(request.url, originalGetQuerySchema);
    if (peek) {
      const peeked = await peekOriginal(hash, { tenant });
      if (!wantsRaw(request, raw)) return json(peeked, 200, RETRIEVAL_HEADERS);
      return textAnswer(peeked);
    }
    const found = await retrieveOriginal(hash, { tenant });
    if (!wantsRaw(request, raw)) return retrievalResponse(found);
    return textAnswer(found);
  },
  DELETE: async (request, { params }) => {
    const { hash } = await params;
    const { tenant } = parseSearchParams(request.url, originalDeleteQuerySchema);
    return json(await deleteOriginal(hash, { tenant }));
  },
});
