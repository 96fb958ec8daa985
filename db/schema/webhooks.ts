import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, timestampMs } from "./columns";

/** A receiver of events. The secret signs deliveries; it is shown once, when the webhook is made. */
export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    url: text("url").notNull(),
    events: jsonb("events").$type<string[]>().notNull(),
    /** Only events about this content class; null for all (trace events have no class and always match). */
    contentClass: text("content_class"),
    format: text("format").$type<"json" | "slack">().notNull(),
    secret: text("secret").notNull(),
    /** A paused webhook gets no new events and its pending deliveries wait until it resumes. */
    active: boolean("active").notNull().default(true),
    description: text("description"),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().defaultNow(),
  },
  (t) => [index("webhooks_created_idx").on(t.createdAt, t.id)],
);

/**
 * The outbox: one row per event, written in the transaction of the write that caused it,
 * so an event exists exactly when its cause was committed. `dedupe_key` makes events that
 * must happen once per thing (a chain's collapse) idempotent across retries and batches.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    contentClass: text("content_class"),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    dedupeKey: text("dedupe_key"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_events_dedupe_idx").on(t.dedupeKey),
    index("webhook_events_created_idx").on(t.createdAt),
  ],
);

/**
 * One event for one webhook: the delivery queue. Due rows (`status = 'pending'` and
 * `next_attempt_at` reached) are claimed with FOR UPDATE SKIP LOCKED and leased by moving
 * `next_attempt_at` past the attempt, so instances share the queue without sending one
 * delivery twice at once, and a crash mid-attempt only delays it.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    /** `pending` (to be tried), `delivered` (a 2xx answer), `abandoned` (retries exhausted). */
    status: text("status").$type<"pending" | "delivered" | "abandoned">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestampMs("next_attempt_at"),
    lastAttemptAt: timestampMs("last_attempt_at"),
    /** The receiver's HTTP status of the last attempt; null when it never answered. */
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    deliveredAt: timestampMs("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_idx").on(t.webhookId, t.eventId),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_list_idx").on(t.webhookId, t.id),
  ],
);
