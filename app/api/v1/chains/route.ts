import { listChains } from "@/db/queries/chains";
import { decodeCursor, encodeCursor, parseSearchParams } from "@/lib/http/list";
import { json, route } from "@/lib/http/route";
import { chainListQuerySchema, defaultOrder } from "@/lib/schemas/chains";

export const GET = route(async (request) => {
  const query = parseSearchParams(request.url, chainListQuerySchema);
  const after = decodeCursor(query.cursor, 2) as [string | number, string] | undefined;
  const { items, next } = await listChains({ ...query, order: query.order ?? defaultOrder(query.sort), after });
  return json({ items, next_cursor: next ? encodeCursor(next) : null });
});
