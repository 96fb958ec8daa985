import { getChain } from "@/db/queries/chains";
import { ApiError } from "@/lib/errors";
import { json, serve } from "@/app/_access/api-route";
import { CHAIN_ROUTES } from "@/lib/routes/chains";

export const { GET, POST, PUT, PATCH, DELETE } = serve(CHAIN_ROUTES.detail, {
  GET: async (_request, { params }) => {
    const { chain_id } = await params;
    const chain = await getChain(chain_id);
    if (!chain) throw new ApiError("not_found", `No chain ${JSON.stringify(chain_id)} has any receipts.`);
    return json(chain);
  },
});
