import { listTraceRejections } from "@/db/queries/traces";
import { parseSearchParams } from "@/lib/http/list";
import { encodeCursor } from "@/lib/http/cursor";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { decodeRejectionCursor, rejectionListQuerySchema } from "@/lib/schemas/traces";

// Fail-closed trace submissions: agents that tried to promote a conclusion with no receipt.
export const GET = route("/api/v1/trace-rejections", async (request) => {
  const { cursor, ...query } = parseSearchParams(request.url, rejectionListQuerySchema);
  const { items, next, total } = await listTraceRejections({ ...query, after: decodeRejectionCursor(cursor) });
  return json({ items, next_cursor: next ? encodeCursor([...next]) : null, total });
});

const notAllowed = methodNotAllowed("/api/v1/trace-rejections");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
