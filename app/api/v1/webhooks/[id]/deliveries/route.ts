import { z } from "zod";
import { getWebhook, listDeliveries } from "@/db/queries/webhooks";
import { ApiError } from "@/lib/errors";
import { cursorPart, decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { WEBHOOK_ROUTES } from "@/lib/routes/webhooks";
import { webhookListQuerySchema } from "@/lib/schemas/webhooks";

const cursorSchema = z.tuple([cursorPart.id]);

export const { GET, POST, PUT, PATCH, DELETE } = serve(WEBHOOK_ROUTES.deliveries, {
  GET: async (request, { params }) => {
    const { id } = await params;
    const { cursor, limit } = parseSearchParams(request.url, webhookListQuerySchema);
    const after = decodeCursor(cursor, cursorSchema)?.[0];
    if (!(await getWebhook(id))) throw new ApiError("not_found", `No webhook ${JSON.stringify(id)} exists.`);
    const { items, next } = await listDeliveries(id, { limit, after });
    return json({ items, next_cursor: next === null ? null : encodeCursor([next]) });
  },
});
