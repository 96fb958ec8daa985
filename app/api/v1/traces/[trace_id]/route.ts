import { getTrace } from "@/db/queries/traces";
import { ApiError } from "@/lib/errors";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";

export const GET = route<{ params: Promise<{ trace_id: string }> }>(
  "/api/v1/traces/{trace_id}",
  async (_request, { params }) => {
    const { trace_id } = await params;
    const trace = await getTrace(trace_id);
    if (!trace) throw new ApiError("not_found", `No trace ${JSON.stringify(trace_id)} has been stored.`);
    return json(trace);
  },
);

const notAllowed = methodNotAllowed("/api/v1/traces/{trace_id}");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
