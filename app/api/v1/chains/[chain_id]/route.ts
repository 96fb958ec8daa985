import { getChain } from "@/db/queries/chains";
import { ApiError } from "@/lib/errors";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";

export const GET = route<{ params: Promise<{ chain_id: string }> }>(
  "/api/v1/chains/{chain_id}",
  async (_request, { params }) => {
    const { chain_id } = await params;
    const chain = await getChain(chain_id);
    if (!chain) throw new ApiError("not_found", `No chain ${JSON.stringify(chain_id)} has any receipts.`);
    return json(chain);
  },
);

const notAllowed = methodNotAllowed("/api/v1/chains/{chain_id}");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
