import "server-only";
import { randomUUID } from "node:crypto";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { getDb } from "../index";
import { type CreatedKey, newestFirstPage } from "../keyset";
import { col, queryRows } from "../sql";
import type { Executor } from "../types";
import { webhookDeliveries, webhookEvents, webhooks } from "../schema";
import type { CreateWebhookInput, UpdateWebhookInput, WebhookDeliveryWire, WebhookWire } from "@/lib/schemas/webhooks";
import { contentClassOf, type EventData, TEST_EVENT_TYPE } from "@/lib/webhooks/payload";

type WebhookRow = typeof webhooks.$inferSelect;

export function toWebhookWire(row: WebhookRow): WebhookWire {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookWire["events"],
    content_class: row.contentClass,
    format: row.format,
    active: row.active,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const newWebhookId = () => `wh_${randomUUID().replace(/-/g, "")}`;
const newEventId = () => `evt_${randomUUID().replace(/-/g, "")}`;

export async function createWebhook(input: CreateWebhookInput, secret: string): Promise<WebhookWire> {
  const db = await getDb();
  const [row] = await db
    .insert(webhooks)
    .values({
      id: newWebhookId(),
      url: input.url,
      events: input.events,
      contentClass: input.content_class ?? null,
      format: input.format,
      secret,
      description: input.description ?? null,
    })
    .returning();
  if (!row) throw new Error("inserting a webhook returned no row");
  return toWebhookWire(row);
}

export async function getWebhook(id: string): Promise<WebhookWire | null> {
  const db = await getDb();
  const [row] = await db.select().from(webhooks).where(eq(webhooks.id, id));
  return row ? toWebhookWire(row) : null;
}

/** Newest first; the cursor is the last row's [created_at, id]. */
export async function listWebhooks(query: {
  limit: number;
  after?: CreatedKey;
}): Promise<{ items: WebhookWire[]; next: [string, string] | null }> {
  const db = await getDb();
  const page = await newestFirstPage(query, (olderThan, limit) =>
    db
      .select()
      .from(webhooks)
      .where(olderThan(webhooks))
      .orderBy(desc(webhooks.createdAt), desc(webhooks.id))
      .limit(limit),
  );
  return { items: page.items.map(toWebhookWire), next: page.next };
}

export async function updateWebhook(id: string, patch: UpdateWebhookInput): Promise<WebhookWire | null> {
  const db = await getDb();
  const [row] = await db
    .update(webhooks)
    .set({
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.events !== undefined ? { events: patch.events } : {}),
      ...(patch.content_class !== undefined ? { contentClass: patch.content_class } : {}),
      ...(patch.format !== undefined ? { format: patch.format } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.active !== undefined ? { active: patch.active } : {}),
      updatedAt: new Date(),
    })
    .where(eq(webhooks.id, id))
    .returning();
  return row ? toWebhookWire(row) : null;
}

/** Deletes the webhook and its deliveries (pending ones are dropped with it). */
export async function deleteWebhook(id: string): Promise<boolean> {
  const db = await getDb();
  const deleted = await db.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id });
  return deleted.length > 0;
}

/** A webhook's deliveries, newest first; the cursor is the last delivery's id. */
export async function listDeliveries(
  webhookId: string,
  query: { limit: number; after?: number },
): Promise<{ items: WebhookDeliveryWire[]; next: number | null }> {
  const db = await getDb();
  const rows = await db
    .select({
      id: webhookDeliveries.id,
      event_id: webhookDeliveries.eventId,
      event_type: webhookEvents.type,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      last_status: webhookDeliveries.lastStatus,
      last_error: webhookDeliveries.lastError,
      last_attempt_at: webhookDeliveries.lastAttemptAt,
      next_attempt_at: webhookDeliveries.nextAttemptAt,
      delivered_at: webhookDeliveries.deliveredAt,
      created_at: webhookDeliveries.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        query.after !== undefined ? lt(webhookDeliveries.id, query.after) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit).map(
    (r): WebhookDeliveryWire => ({
      ...r,
      last_attempt_at: r.last_attempt_at?.toISOString() ?? null,
      // A delivery being attempted right now has its lease here; only pending ones have a next attempt.
      next_attempt_at: r.status === "pending" ? (r.next_attempt_at?.toISOString() ?? null) : null,
      delivered_at: r.delivered_at?.toISOString() ?? null,
      created_at: r.created_at.toISOString(),
    }),
  );
  const last = page.at(-1);
  return { items: page, next: rows.length > query.limit && last ? last.id : null };
}

// ---------------------------------------------------------------------------------------
// The outbox

/** An event to record; `dedupeKey` makes it happen at most once (a chain collapses once). */
export type OutboxEvent = EventData & { dedupeKey?: string };

/**
 * Records events and queues a delivery for every active webhook that subscribed to each,
 * in ONE statement inside the caller's transaction: the events exist exactly when the write
 * that caused them commits. An event whose dedupe key was already recorded is skipped.
 * Returns the events actually recorded and the number of deliveries queued.
 */
export async function recordEvents(
  tx: Executor,
  events: readonly OutboxEvent[],
): Promise<{ recorded: { type: string; dedupe_key: string | null }[]; queued: number }> {
  if (events.length === 0) return { recorded: [], queued: 0 };
  const rows = events.map((e) => ({
    id: newEventId(),
    type: e.type,
    content_class: contentClassOf(e),
    data: e.data,
    dedupe_key: e.dedupeKey ?? null,
  }));
  const recorded = await queryRows(
    tx,
    sql`
      with ev as (
        insert into webhook_events (id, type, content_class, data, dedupe_key)
        select id, type, content_class, data, dedupe_key
        from json_to_recordset(${JSON.stringify(rows)}::json) as e(id text, type text, content_class text, data jsonb, dedupe_key text)
        on conflict (dedupe_key) do nothing
        returning id, type, content_class, created_at, dedupe_key
      ),
      queued as (
        insert into webhook_deliveries (webhook_id, event_id, status, attempts, next_attempt_at, created_at)
        select w.id, ev.id, 'pending', 0, ev.created_at, ev.created_at
        from ev join webhooks w
          on w.active
          and w.events @> jsonb_build_array(ev.type)
          and (w.content_class is null or ev.content_class is null or w.content_class = ev.content_class)
        returning 1
      )
      select ev.type, ev.dedupe_key, (select count(*) from queued) as queued from ev`,
    { type: col.text, dedupe_key: col.text.nullable(), queued: col.int },
  );
  return {
    recorded: recorded.map((r) => ({ type: r.type, dedupe_key: r.dedupe_key })),
    queued: recorded[0]?.queued ?? 0,
  };
}

/** The "send a test event" action: one event, queued for this webhook only (paused or not). */
export async function enqueueTestEvent(webhookId: string): Promise<{ event_id: string; delivery_id: number } | null> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [hook] = await tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, webhookId));
    if (!hook) return null;
    const id = newEventId();
    await tx.insert(webhookEvents).values({
      id,
      type: TEST_EVENT_TYPE,
      data: { message: "This is a test event; nothing happened to any chain.", webhook_id: webhookId },
    });
    const [delivery] = await tx
      .insert(webhookDeliveries)
      .values({ webhookId, eventId: id, status: "pending", nextAttemptAt: new Date() })
      .returning({ id: webhookDeliveries.id });
    if (!delivery) throw new Error("queueing a test delivery returned no row");
    return { event_id: id, delivery_id: delivery.id };
  });
}

// ---------------------------------------------------------------------------------------
// The delivery worker's side

export interface ClaimedDelivery {
  id: number;
  webhookId: string;
  /** Attempts including this one. */
  attempts: number;
  url: string;
  secret: string;
  format: "json" | "slack";
  event: { id: string; type: string; data: Record<string, unknown>; created_at: Date };
}

/** How far down the due queue one claim looks for webhooks to serve. */
const CLAIM_WINDOW = 500;

/**
 * Claims up to `limit` due deliveries, at most `perWebhook` of any one webhook, and none of
 * the webhooks in `skip` (those this process is still sending to): one receiver that answers
 * slowly, or not at all, then holds at most its own few attempts, and the other webhooks'
 * deliveries are claimed past its backlog. SKIP LOCKED lets several instances claim at once
 * without waiting on or taking each other's rows; the lease (`next_attempt_at` moved to
 * `leaseUntil`) keeps a claimed row from being claimed again while it is being sent, and
 * brings it back if this process dies mid-attempt. Test deliveries go out even to a paused
 * webhook (the operator asked for them).
 */
export async function claimDueDeliveries(
  limit: number,
  now: Date,
  leaseUntil: Date,
  options: { perWebhook?: number; skip?: readonly string[] } = {},
): Promise<ClaimedDelivery[]> {
  const db = await getDb();
  const perWebhook = options.perWebhook ?? limit;
  const skip = JSON.stringify(options.skip ?? []);
  const rows = await queryRows(
    db,
    sql`
      with candidates as (
        select d.id, d.webhook_id, d.next_attempt_at from webhook_deliveries d
        join webhooks w on w.id = d.webhook_id
        join webhook_events e on e.id = d.event_id
        where d.status = 'pending' and d.next_attempt_at <= ${now.toISOString()}::timestamptz
          and (w.active or e.type = ${TEST_EVENT_TYPE})
          and d.webhook_id not in (select value from json_array_elements_text(${skip}::json))
        order by d.next_attempt_at, d.id
        limit ${CLAIM_WINDOW}
      ),
      ranked as (
        select id, row_number() over (partition by webhook_id order by next_attempt_at, id) as rank
        from candidates
      ),
      due as (
        select d.id from webhook_deliveries d
        join ranked r on r.id = d.id
        -- Checked again on the row as locked: another instance may have claimed it since.
        where r.rank <= ${perWebhook} and d.status = 'pending'
          and d.next_attempt_at <= ${now.toISOString()}::timestamptz
        order by d.next_attempt_at, d.id
        limit ${limit}
        for update of d skip locked
      )
      update webhook_deliveries d
      set next_attempt_at = ${leaseUntil.toISOString()}::timestamptz, attempts = d.attempts + 1,
        last_attempt_at = ${now.toISOString()}::timestamptz
      from due, webhooks w, webhook_events e
      where d.id = due.id and w.id = d.webhook_id and e.id = d.event_id
      returning d.id, d.webhook_id, d.attempts, w.url, w.secret, w.format, e.id as event_id, e.type, e.data,
        e.created_at as event_created_at`,
    {
      id: col.int,
      webhook_id: col.text,
      attempts: col.int,
      url: col.text,
      secret: col.text,
      format: col.oneOf(["json", "slack"]),
      event_id: col.text,
      type: col.text,
      data: col.jsonObject,
      event_created_at: col.date,
    },
  );
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    attempts: r.attempts,
    url: r.url,
    secret: r.secret,
    format: r.format,
    event: { id: r.event_id, type: r.type, data: r.data, created_at: r.event_created_at },
  }));
}

export type AttemptOutcome =
  | { ok: true; status: number; at: Date }
  | { ok: false; status: number | null; error: string; at: Date; nextAttemptAt: Date | null };

/**
 * Records how an attempt went. Only the claim that made the attempt may record it (same
 * attempt count): if a lease ran out and another instance took the row, its result wins.
 */
export async function recordAttempt(
  delivery: Pick<ClaimedDelivery, "id" | "attempts">,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const db = await getDb();
  const set = outcome.ok
    ? {
        status: "delivered" as const,
        lastStatus: outcome.status,
        lastError: null,
        deliveredAt: outcome.at,
        nextAttemptAt: null,
      }
    : {
        status: outcome.nextAttemptAt ? ("pending" as const) : ("abandoned" as const),
        lastStatus: outcome.status,
        lastError: outcome.error.slice(0, 1000),
        nextAttemptAt: outcome.nextAttemptAt,
      };
  const updated = await db
    .update(webhookDeliveries)
    .set(set)
    .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts)))
    .returning({ id: webhookDeliveries.id });
  return updated.length > 0;
}

/**
 * Forgets events older than `before` that have nothing left to deliver (their delivery log
 * goes with them), at most `limit` per call. Their dedupe keys go too, which is harmless:
 * a chain's collapse is announced when its collapse point is first set, which happens once.
 */
export async function deleteSettledEvents(before: Date, limit = 1000): Promise<number> {
  const db = await getDb();
  const deleted = await queryRows(
    db,
    sql`
      delete from webhook_events where id in (
        select e.id from webhook_events e
        where e.created_at < ${before.toISOString()}::timestamptz
          and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
        order by e.created_at
        limit ${limit}
      )
      returning id`,
    { id: col.text },
  );
  return deleted.length;
}
