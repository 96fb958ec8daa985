import { z } from "zod";
import { limitSchema } from "../http/list";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "../webhooks/payload";
import { checkWebhookUrl } from "../webhooks/target";
import { contentClassSchema, text } from "./common";

/** The URL's own rules (scheme, no credentials, length); where it resolves is checked by the use case. */
const webhookUrlSchema = z.string().superRefine((value, ctx) => {
  const checked = checkWebhookUrl(value);
  if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.reason });
});

const eventsSchema = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1, "name at least one event")
  .refine((events) => new Set(events).size === events.length, "must not repeat an event");

export const createWebhookSchema = z.object({
  url: webhookUrlSchema,
  events: eventsSchema,
  content_class: contentClassSchema.nullish(),
  format: z.enum(WEBHOOK_FORMATS).default("json"),
  description: text({ max: 256 }).nullish(),
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const updateWebhookSchema = z
  .object({
    url: webhookUrlSchema.optional(),
    events: eventsSchema.optional(),
    /** null: every content class. */
    content_class: contentClassSchema.nullable().optional(),
    format: z.enum(WEBHOOK_FORMATS).optional(),
    description: text({ max: 256 }).nullable().optional(),
    /** false pauses the webhook; true resumes it. */
    active: z.boolean().optional(),
  })
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), "change at least one field");
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

export const webhookListQuerySchema = z.object({ cursor: z.string().optional(), limit: limitSchema });

// ---------------------------------------------------------------------------------------
// Answers

const timestamp = z.string().describe("RFC 3339, UTC");

export const webhookWireSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    content_class: z.string().nullable(),
    format: z.enum(WEBHOOK_FORMATS),
    active: z.boolean(),
    description: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Webhook" });
export type WebhookWire = z.infer<typeof webhookWireSchema>;

export const createdWebhookSchema = webhookWireSchema
  .extend({ secret: z.string().describe("Signs every delivery; shown only in this answer.") })
  .meta({ id: "CreatedWebhook" });

const DELIVERY_STATUSES = ["pending", "delivered", "abandoned"] as const;

export const webhookDeliveryWireSchema = z
  .object({
    id: z.int(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int().min(0),
    last_status: z.int().nullable(),
    last_error: z.string().nullable(),
    last_attempt_at: timestamp.nullable(),
    next_attempt_at: timestamp.nullable(),
    delivered_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDeliveryWire = z.infer<typeof webhookDeliveryWireSchema>;

export const testEventResultSchema = z.object({ event_id: z.string(), delivery_id: z.int() });
