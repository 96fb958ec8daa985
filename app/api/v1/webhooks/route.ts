import { createWebhook, listWebhooks } from "@/db/queries/webhooks";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { cursorPart, decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { WEBHOOK_ROUTES } from "@/lib/routes/webhooks";
import { createWebhookSchema, webhookListQuerySchema } from "@/lib/schemas/webhooks";
import { generateWebhookSecret } from "@/lib/webhooks/signature";
import { z } from "zod";
import { assertDeliverable } from "@/db/workers/webhook-send";

const cursorSchema = z.tuple([cursorPart.timestamp, cursorPart.text]);

export const { GET, POST, PUT, PATCH, DELETE } = serve(WEBHOOK_ROUTES.list, {
  POST: async (request) => {
    const input = parseBody(await readJson(request), createWebhookSchema);
    await assertDeliverable(input.url);
    const secret = generateWebhookSecret();
    const webhook = await createWebhook(input, secret);
    return json({ ...webhook, secret }, 201);
  },
  GET: async (request) => {
    const { cursor, limit } = parseSearchParams(request.url, webhookListQuerySchema);
    const { items, next } = await listWebhooks({ limit, after: decodeCursor(cursor, cursorSchema) });
    return json({ items, next_cursor: next ? encodeCursor(next) : null });
  },
});
