import { enqueueTestEvent } from "@/db/queries/webhooks";
import { ApiError } from "@/lib/errors";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { pokeWebhookWorker } from "@/db/workers/webhook-delivery";

/** Queues a `webhook.test` event for this webhook only; the delivery log shows how it went. */
export const POST = route<{ params: Promise<{ id: string }> }>(
  "/api/v1/webhooks/{id}/test",
  async (_request, { params }) => {
    const { id } = await params;
    const queued = await enqueueTestEvent(id);
    if (!queued) throw new ApiError("not_found", `No webhook ${JSON.stringify(id)} exists.`);
    pokeWebhookWorker();
    return json(queued, 202);
  },
);

const notAllowed = methodNotAllowed("/api/v1/webhooks/{id}/test");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
