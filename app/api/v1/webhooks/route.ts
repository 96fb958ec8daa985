import { createWebhook, listWebhooks } from "@/db/queries/webhooks";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { cursorPart, decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { createWebhookSchema, webhookListQuerySchema } from "@/lib/schemas/webhooks";
import { generateWebhookSecret } from "@/lib/webhooks/signature";
import { z } from "zod";
import { assertDeliverable } from "@/db/workers/webhook-send";

const cursorSchema = z.tuple([cursorPart.timestamp, cursorPart.text]);

export const POST = route("/api/v1/webhooks", async (request) => {
  const input = parseBody(await readJson(request), createWebhookSchema);
  await assertDeliverable(input.url);
  const secret = generateWebhookSecret();
  const webhook = await createWebhook(input, secret);
  return json({ ...webhook, secret }, 201);
});

export const GET = route("/api/v1/webhooks", async (request) => {
  const { cursor, limit } = parseSearchParams(request.url, webhookListQuerySchema);
  const { items, next } = await listWebhooks({ limit, after: decodeCursor(cursor, cursorSchema) });
  return json({ items, next_cursor: next ? encodeCursor(next) : null });
});

const notAllowed = methodNotAllowed("/api/v1/webhooks");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
