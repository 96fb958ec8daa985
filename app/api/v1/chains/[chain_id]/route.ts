import { getChain } from "@/db/queries/chains";
import { ApiError } from "@/lib/errors";
import { json, route } from "@/lib/http/route";

export const GET = route<{ params: Promise<{ chain_id: string }> }>(async (_request, { params }) => {
  const { chain_id } = await params;
  const chain = await getChain(chain_id);
  if (!chain) throw new ApiError("not_found", `No chain ${JSON.stringify(chain_id)} has any receipts.`);
  return json(chain);
});
