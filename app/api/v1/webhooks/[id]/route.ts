import { deleteWebhook, getWebhook, updateWebhook } from "@/db/queries/webhooks";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { updateWebhookSchema } from "@/lib/schemas/webhooks";
import { assertDeliverable } from "@/db/workers/webhook-send";

type Context = { params: Promise<{ id: string }> };

const notFound = (id: string) => new ApiError("not_found", `No webhook ${JSON.stringify(id)} exists.`);

export const GET = route<Context>("/api/v1/webhooks/{id}", async (_request, { params }) => {
  const { id } = await params;
  const webhook = await getWebhook(id);
  if (!webhook) throw notFound(id);
  return json(webhook);
});

export const PATCH = route<Context>("/api/v1/webhooks/{id}", async (request, { params }) => {
  const { id } = await params;
  const patch = parseBody(await readJson(request), updateWebhookSchema);
  if (patch.url !== undefined) await assertDeliverable(patch.url);
  const webhook = await updateWebhook(id, patch);
  if (!webhook) throw notFound(id);
  return json(webhook);
});

export const DELETE = route<Context>("/api/v1/webhooks/{id}", async (_request, { params }) => {
  const { id } = await params;
  if (!(await deleteWebhook(id))) throw notFound(id);
  return new Response(null, { status: 204 });
});

const notAllowed = methodNotAllowed("/api/v1/webhooks/{id}");
export { notAllowed as POST, notAllowed as PUT };
