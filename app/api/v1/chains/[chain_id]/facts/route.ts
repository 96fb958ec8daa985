import { chainExists } from "@/db/queries/chains";
import { listChainFacts } from "@/db/queries/chain-facts";
import { ApiError } from "@/lib/errors";
import { encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { chainFactQuerySchema, decodeFactCursor } from "@/lib/schemas/facts";
import { json, serve } from "@/app/_access/api-route";
import { CHAIN_ROUTES } from "@/lib/routes/chains";

/** The chain's facts ledger (docs/facts.md): a page of its source's facts by salience, each with its fate. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(CHAIN_ROUTES.facts, {
  GET: async (request, { params }) => {
    const query = parseSearchParams(request.url, chainFactQuerySchema);
    const after = decodeFactCursor(query.cursor);
    const { chain_id } = await params;
    if (!(await chainExists(chain_id)))
      throw new ApiError("not_found", `No chain ${JSON.stringify(chain_id)} has any receipts.`);
    const { items, next } = await listChainFacts(chain_id, { fate: query.fate, q: query.q, limit: query.limit, after });
    return json({
      items: items.map(({ rank: _, ...fact }) => fact),
      next_cursor: next === null ? null : encodeCursor([next]),
    });
  },
});
