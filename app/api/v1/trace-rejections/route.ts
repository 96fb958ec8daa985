import { listTraceRejections } from "@/db/queries/traces";
import { parseSearchParams } from "@/lib/http/list";
import { encodeCursor } from "@/lib/http/cursor";
import { json, serve } from "@/app/_access/api-route";
import { TRACE_ROUTES } from "@/lib/routes/traces";
import { decodeRejectionCursor, rejectionListQuerySchema } from "@/lib/schemas/traces";

// Fail-closed trace submissions: agents that tried to promote a conclusion with no receipt.
export const { GET, POST, PUT, PATCH, DELETE } = serve(TRACE_ROUTES.rejections, {
  GET: async (request) => {
    const { cursor, ...query } = parseSearchParams(request.url, rejectionListQuerySchema);
    const { items, next, total } = await listTraceRejections({ ...query, after: decodeRejectionCursor(cursor) });
    return json({ items, next_cursor: next ? encodeCursor([...next]) : null, total });
  },
});
