import { listChains } from "@/db/queries/chains";
import { parseSearchParams } from "@/lib/http/list";
import { encodeCursor } from "@/lib/http/cursor";
import { json, serve } from "@/app/_access/api-route";
import { CHAIN_ROUTES } from "@/lib/routes/chains";
import { chainListQuerySchema, decodeChainCursor, defaultOrder } from "@/lib/schemas/chains";

export const { GET, POST, PUT, PATCH, DELETE } = serve(CHAIN_ROUTES.list, {
  GET: async (request) => {
    const query = parseSearchParams(request.url, chainListQuerySchema, ["status"]);
    const after = decodeChainCursor(query.cursor, query.sort);
    const { items, next } = await listChains({ ...query, order: query.order ?? defaultOrder(query.sort), after });
    return json({ items, next_cursor: next ? encodeCursor(next) : null });
  },
});
