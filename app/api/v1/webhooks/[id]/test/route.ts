import { enqueueTestEvent } from "@/db/queries/webhooks";
import { ApiError } from "@/lib/errors";
import { json, serve } from "@/app/_access/api-route";
import { WEBHOOK_ROUTES } from "@/lib/routes/webhooks";
import { pokeWebhookWorker } from "@/db/workers/webhook-delivery";

/** Queues a `webhook.test` event for this webhook only; the delivery log shows how it went. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(WEBHOOK_ROUTES.test, {
  POST: async (_request, { params }) => {
    const { id } = await params;
    const queued = await enqueueTestEvent(id);
    if (!queued) throw new ApiError("not_found", `No webhook ${JSON.stringify(id)} exists.`);
    pokeWebhookWorker();
    return json(queued, 202);
  },
});
