import { deleteWebhook, getWebhook, updateWebhook } from "@/db/queries/webhooks";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, serve } from "@/app/_access/api-route";
import { WEBHOOK_ROUTES } from "@/lib/routes/webhooks";
import { updateWebhookSchema } from "@/lib/schemas/webhooks";
import { assertDeliverable } from "@/db/workers/webhook-send";

const notFound = (id: string) => new ApiError("not_found", `No webhook ${JSON.stringify(id)} exists.`);

export const { GET, POST, PUT, PATCH, DELETE } = serve(WEBHOOK_ROUTES.detail, {
  GET: async (_request, { params }) => {
    const { id } = await params;
    const webhook = await getWebhook(id);
    if (!webhook) throw notFound(id);
    return json(webhook);
  },
  PATCH: async (request, { params }) => {
    const { id } = await params;
    const patch = parseBody(await readJson(request), updateWebhookSchema);
    if (patch.url !== undefined) await assertDeliverable(patch.url);
    const webhook = await updateWebhook(id, patch);
    if (!webhook) throw notFound(id);
    return json(webhook);
  },
  DELETE: async (_request, { params }) => {
    const { id } = await params;
    if (!(await deleteWebhook(id))) throw notFound(id);
    return new Response(null, { status: 204 });
  },
});
