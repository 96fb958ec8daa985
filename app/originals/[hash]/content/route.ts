// The detail page's own reader: slices and whole texts for display, copy and download. It
// is not the retrieval API: nothing here is counted or refreshes recency.
import { getOriginalText } from "@/db/queries/originals/view";
import { FULL_HASH_LENGTH, parseHashKey } from "@/lib/originals/rules";
import { ApiError } from "@/lib/errors";
import { parseSearchParams } from "@/lib/http/list";
import { originalContentQuerySchema } from "@/lib/schemas/originals";
import { json, serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.content, {
  GET: async (request, { params }) => {
    const { hash } = await params;
    const key = parseHashKey(hash);
    const query = parseSearchParams(request.url, originalContentQuerySchema);
    const found =
      key.ok && key.key.length === FULL_HASH_LENGTH
        ? await getOriginalText(
            key.key,
            query.part,
            query.offset === undefined ? null : { offset: query.offset, length: query.length },
          )
        : null;
    if (!found) throw new ApiError("not_found", `There is no live ${query.part} text stored under ${hash}.`);
    if (query.offset !== undefined) return json(found);
    const extension = found.content_type?.includes("json") && query.part === "original" ? "json" : "txt";
    const name = `${key.ok ? key.key.slice(0, 16) : "original"}${query.part === "compressed" ? ".compressed" : ""}.${extension}`;
    return new Response(found.text, {
      headers: {
        // Always plain text, never interpreted: stored content must not run as a page of this origin.
        "content-type": "text/plain; charset=utf-8",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        // Copy and download of a 32 MiB original: gzip would cost the server more than it saves.
        "cache-control": "no-store, no-transform",
        ...(query.download ? { "content-disposition": `attachment; filename="${name}"` } : {}),
      },
    });
  },
});
