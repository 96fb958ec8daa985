import { getTrace } from "@/db/queries/traces";
import { ApiError } from "@/lib/errors";
import { json, serve } from "@/app/_access/api-route";
import { TRACE_ROUTES } from "@/lib/routes/traces";

export const { GET, POST, PUT, PATCH, DELETE } = serve(TRACE_ROUTES.detail, {
  GET: async (_request, { params }) => {
    const { trace_id } = await params;
    const trace = await getTrace(trace_id);
    if (!trace) throw new ApiError("not_found", `No trace ${JSON.stringify(trace_id)} has been stored.`);
    return json(trace);
  },
});
