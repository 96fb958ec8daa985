// The routes of webhooks and their deliveries.
import { defineRoute } from "../http/contract";
import { listOf } from "../schemas/common";
import {
  createdWebhookSchema,
  createWebhookSchema,
  testEventResultSchema,
  updateWebhookSchema,
  webhookDeliveryWireSchema,
  webhookListQuerySchema,
  webhookWireSchema,
} from "../schemas/webhooks";

export const WEBHOOK_ROUTES = {
  list: defineRoute("/api/v1/webhooks", {
    GET: {
      scope: "admin",
      summary: "List webhooks",
      tag: "Webhooks",
      query: webhookListQuerySchema,
      responses: {
        200: { description: "A page of webhooks (never their secrets).", schema: listOf(webhookWireSchema) },
      },
    },
    POST: {
      scope: "admin",
      summary: "Create a webhook",
      description:
        "Only http(s) URLs; a URL whose host resolves to a private, loopback or link-local address is refused unless the server runs with `FLOORLINE_WEBHOOK_ALLOW_PRIVATE=1`. The secret is in this answer only.",
      tag: "Webhooks",
      body: createWebhookSchema,
      responses: { 201: { description: "Created, with its signing secret.", schema: createdWebhookSchema } },
    },
  }),
  detail: defineRoute("/api/v1/webhooks/{id}", {
    GET: {
      scope: "admin",
      summary: "A webhook",
      tag: "Webhooks",
      responses: { 200: { description: "The webhook.", schema: webhookWireSchema } },
      errors: [404],
    },
    PATCH: {
      scope: "admin",
      summary: "Change a webhook (`active: false` pauses it)",
      tag: "Webhooks",
      body: updateWebhookSchema,
      responses: { 200: { description: "The webhook as changed.", schema: webhookWireSchema } },
      errors: [404],
    },
    DELETE: {
      scope: "admin",
      summary: "Delete a webhook and its pending deliveries",
      tag: "Webhooks",
      responses: { 204: { description: "Deleted." } },
      errors: [404],
    },
  }),
  deliveries: defineRoute("/api/v1/webhooks/{id}/deliveries", {
    GET: {
      scope: "admin",
      summary: "A webhook's delivery log",
      tag: "Webhooks",
      query: webhookListQuerySchema,
      responses: {
        200: { description: "Deliveries, newest first.", schema: listOf(webhookDeliveryWireSchema) },
      },
      errors: [404],
    },
  }),
  test: defineRoute("/api/v1/webhooks/{id}/test", {
    POST: {
      scope: "admin",
      summary: "Send a test event to this webhook",
      description: "Queues a `webhook.test` event for this webhook only; see its delivery log for the outcome.",
      tag: "Webhooks",
      responses: { 202: { description: "Queued.", schema: testEventResultSchema } },
      errors: [404],
    },
  }),
};
