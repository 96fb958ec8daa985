import { listChains } from "@/db/queries/chains";
import { parseSearchParams } from "@/lib/http/list";
import { encodeCursor } from "@/lib/http/cursor";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { chainListQuerySchema, decodeChainCursor, defaultOrder } from "@/lib/schemas/chains";

export const GET = route("/api/v1/chains", async (request) => {
  const query = parseSearchParams(request.url, chainListQuerySchema, ["status"]);
  const after = decodeChainCursor(query.cursor, query.sort);
  const { items, next } = await listChains({ ...query, order: query.order ?? defaultOrder(query.sort), after });
  return json({ items, next_cursor: next ? encodeCursor(next) : null });
});

const notAllowed = methodNotAllowed("/api/v1/chains");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
