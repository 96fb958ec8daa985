import { listTraces, storeTrace } from "@/db/queries/traces";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { parseSearchParams } from "@/lib/http/list";
import { encodeCursor } from "@/lib/http/cursor";
import { json, serve } from "@/app/_access/api-route";
import { TRACE_ROUTES } from "@/lib/routes/traces";
import { decodeTraceCursor, traceListQuerySchema, traceSubmissionSchema } from "@/lib/schemas/traces";

export const { GET, POST, PUT, PATCH, DELETE } = serve(TRACE_ROUTES.list, {
  POST: async (request) => {
    const submission = parseBody(await readJson(request), traceSubmissionSchema);
    const { trace, created } = await storeTrace(submission);
    return json(trace, created ? 201 : 200);
  },
  GET: async (request) => {
    const { cursor, ...query } = parseSearchParams(request.url, traceListQuerySchema);
    const { items, next } = await listTraces({ ...query, after: decodeTraceCursor(cursor) });
    return json({ items, next_cursor: next ? encodeCursor([...next]) : null });
  },
});
