import { like, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/webhooks/route";
import * as deliveriesRoute from "@/app/api/v1/webhooks/[id]/deliveries/route";
import * as item from "@/app/api/v1/webhooks/[id]/route";
import * as testRoute from "@/app/api/v1/webhooks/[id]/test/route";
import { getDb } from "@/db/index";
import { webhookEvents } from "@/db/schema";
import { claimDueDeliveries, deleteSettledEvents, recordEvents } from "@/db/queries/webhooks";
import { verifySignature } from "@/lib/webhooks/signature";
import { deliverOne } from "@/db/workers/webhook-delivery";
import { nth, startReceiver, type Receiver } from "../support/receiver";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, expectError, post } from "./api-helpers";

setUpTestDatabase();

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});
afterEach(() => {
  delete process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE;
});

const collapsed = (chainId: string) => ({
  type: "chain.collapsed" as const,
  data: {
    chain_id: chainId,
    content_class: "summary",
    pass_id: `${chainId}.p4`,
    pass_number: 4,
    verdict: "COLLAPSE_IMMINENT" as const,
    directive: "halt",
    reasons: ["continued_after_halt" as const],
  },
  dedupeKey: `chain.collapsed:${chainId}`,
});

async function createHook(body: Record<string, unknown> = {}) {
  process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE = "1";
  const answer = await post(collection.POST, "/api/v1/webhooks", {
    url: receiver.url,
    events: ["chain.collapsed"],
    ...body,
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: string; secret: string };
}

async function due() {
  const now = new Date(Date.now() + 1000);
  return claimDueDeliveries(50, now, new Date(now.getTime() + 60_000));
}

describe("webhooks API", () => {
  it("refuses private and loopback targets without the opt-in, and non-http URLs always", async () => {
    for (const url of ["http://127.0.0.1:9/x", "http://[::1]/x", "http://169.254.169.254/latest", "http://10.0.0.1/"]) {
      const answer = await post(collection.POST, "/api/v1/webhooks", { url, events: ["chain.collapsed"] });
      const error = expectError(answer, 422, "validation_failed");
      expect(error.issues?.[0]?.path).toBe("url");
    }
    // A name that resolves to loopback is refused without saying which address it resolved to.
    const internal = await post(collection.POST, "/api/v1/webhooks", {
      url: "http://localhost:9/x",
      events: ["chain.collapsed"],
    });
    expectError(internal, 422, "validation_failed");
    expect(internal.text).toContain("FLOORLINE_WEBHOOK_ALLOW_PRIVATE=1");
    expect(internal.text).not.toMatch(/127\.0\.0\.1|::1|7f00/);
    process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE = "1";
    expectError(
      await post(collection.POST, "/api/v1/webhooks", { url: "file:///etc/passwd", events: ["chain.collapsed"] }),
      422,
      "validation_failed",
    );
    expectError(
      await post(collection.POST, "/api/v1/webhooks", { url: receiver.url, events: ["chain.nothing"] }),
      422,
      "validation_failed",
    );
  });

  it("creates a webhook, shows its secret once, pauses, lists and deletes it", async () => {
    const created = await createHook({ format: "slack", content_class: "summary" });
    expect(created.secret).toMatch(/^whsec_/);
    const listed = await call(collection.GET, jsonRequest("/api/v1/webhooks"));
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(created.secret);
    expect(listed.body.items.map((w: { id: string }) => w.id)).toContain(created.id);

    const paused = await call(
      item.PATCH,
      jsonRequest(`/api/v1/webhooks/${created.id}`, { method: "PATCH", body: { active: false } }),
      params({ id: created.id }),
    );
    expect(paused.body).toMatchObject({ id: created.id, active: false, format: "slack", content_class: "summary" });
    expect(paused.text).not.toContain(created.secret);
    expectError(
      await call(
        item.PATCH,
        jsonRequest(`/api/v1/webhooks/${created.id}`, { method: "PATCH", body: {} }),
        params({ id: created.id }),
      ),
      422,
      "validation_failed",
    );

    const gone = await call(
      item.DELETE,
      jsonRequest(`/api/v1/webhooks/${created.id}`, { method: "DELETE" }),
      params({ id: created.id }),
    );
    expect(gone.status).toBe(204);
    expectError(
      await call(item.GET, jsonRequest(`/api/v1/webhooks/${created.id}`), params({ id: created.id })),
      404,
      "not_found",
    );
  });
});

describe("the outbox and the delivery worker", () => {
  it("lists webhooks in keyset pages, newest first, each once", async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createHook()).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    try {
      do {
        const query: string = `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page = await call(collection.GET, jsonRequest(`/api/v1/webhooks?${query}`));
        expect(page.status, page.text).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.items.map((w: { id: string }) => w.id));
        cursor = page.body.next_cursor;
      } while (cursor);
    } finally {
      // Later tests count what every webhook receives: these go whatever happened.
      for (const id of made)
        await call(item.DELETE, jsonRequest(`/api/v1/webhooks/${id}`, { method: "DELETE" }), params({ id }));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => made.includes(id))).toEqual([...made].reverse());
  });

  it("records nothing when the writing transaction rolls back, and each collapse once", async () => {
    const hook = await createHook();
    const db = await getDb();
    await expect(
      db.transaction(async (tx) => {
        await recordEvents(tx, [collapsed("rolled-back")]);
        throw new Error("the ingest failed");
      }),
    ).rejects.toThrow("the ingest failed");
    await db.transaction(async (tx) => {
      expect((await recordEvents(tx, [collapsed("once")])).queued).toBe(1);
    });
    await db.transaction(async (tx) => {
      expect(await recordEvents(tx, [collapsed("once")])).toEqual({ recorded: [], queued: 0 });
    });
    const events = await db.select({ dedupe_key: webhookEvents.dedupeKey }).from(webhookEvents);
    expect(events.map((e) => e.dedupe_key)).toEqual(["chain.collapsed:once"]);

    const claimed = await due();
    expect(claimed.map((d) => d.event.data.chain_id)).toEqual(["once"]);
    // Claimed rows are leased: a second claim does not see them.
    expect(await due()).toEqual([]);

    receiver.received.length = 0;
    expect(await deliverOne(nth(claimed, 0))).toBe(true);
    const request = nth(await receiver.waitFor(1), 0);
    expect(request.headers["x-floorline-event"]).toBe("chain.collapsed");
    expect(request.headers["x-floorline-delivery"]).toBe(nth(claimed, 0).event.id);
    expect(
      verifySignature(
        hook.secret,
        {
          timestamp: String(request.headers["x-floorline-timestamp"]),
          signature: String(request.headers["x-floorline-signature"]),
        },
        request.body,
      ),
    ).toBe(true);
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ id: nth(claimed, 0).event.id, type: "chain.collapsed", data: { chain_id: "once" } });
    expect(body.url).toMatch(/\/chains\/once$/);

    const log = await call(
      deliveriesRoute.GET,
      jsonRequest(`/api/v1/webhooks/${hook.id}/deliveries`),
      params({ id: hook.id }),
    );
    expect(log.body.items[0]).toMatchObject({
      status: "delivered",
      attempts: 1,
      last_status: 200,
      next_attempt_at: null,
    });
    await call(item.DELETE, jsonRequest(`/api/v1/webhooks/${hook.id}`, { method: "DELETE" }), params({ id: hook.id }));
  });

  it("retries a failed delivery later with the same event id, and a paused webhook waits", async () => {
    const hook = await createHook({ events: ["chain.collapsed", "trace.rejected"] });
    const db = await getDb();
    await db.transaction((tx) => recordEvents(tx, [collapsed("flaky")]));
    receiver.answer(500);
    receiver.received.length = 0;
    const first = nth(await due(), 0);
    expect(await deliverOne(first)).toBe(false);
    const log = await call(
      deliveriesRoute.GET,
      jsonRequest(`/api/v1/webhooks/${hook.id}/deliveries`),
      params({ id: hook.id }),
    );
    expect(log.body.items[0]).toMatchObject({ status: "pending", attempts: 1, last_status: 500 });
    const next = Date.parse(log.body.items[0].next_attempt_at);
    expect(next).toBeGreaterThan(Date.now() + 5_000);
    expect(await due()).toEqual([]);

    // Due again: move the clock, not the row.
    receiver.answer(200);
    const later = new Date(next + 1);
    const second = nth(await claimDueDeliveries(10, later, new Date(later.getTime() + 60_000)), 0);
    expect(second.event.id).toBe(first.event.id);
    expect(second.attempts).toBe(2);
    expect(await deliverOne(second)).toBe(true);
    const requests = await receiver.waitFor(2);
    expect(requests.map((r) => r.headers["x-floorline-delivery"])).toEqual([first.event.id, first.event.id]);

    await call(
      item.PATCH,
      jsonRequest(`/api/v1/webhooks/${hook.id}`, { method: "PATCH", body: { active: false } }),
      params({ id: hook.id }),
    );
    await db.transaction((tx) => recordEvents(tx, [collapsed("while-paused")]));
    expect(await due()).toEqual([]);
    // The test action still reaches a paused webhook: the operator asked for it.
    const queued = await call(
      testRoute.POST,
      jsonRequest(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", body: {} }),
      params({ id: hook.id }),
    );
    expect(queued.status).toBe(202);
    const tests = await due();
    expect(tests.map((d) => d.event.type)).toEqual(["webhook.test"]);
    await call(item.DELETE, jsonRequest(`/api/v1/webhooks/${hook.id}`, { method: "DELETE" }), params({ id: hook.id }));
  });

  it("lets concurrent claims share the queue without taking a row twice (SKIP LOCKED)", async () => {
    const hook = await createHook();
    const db = await getDb();
    await db.transaction((tx) =>
      recordEvents(
        tx,
        Array.from({ length: 30 }, (_, i) => collapsed(`many-${i}`)),
      ),
    );
    const now = new Date(Date.now() + 1000);
    const lease = new Date(now.getTime() + 60_000);
    // Claims at once never take a row twice. Each looks at the webhook's first rows as its
    // snapshot ranks them, so claims that overlap may leave some for the next round: the
    // worker claims again until the queue is drained, and so does this test.
    const ids = (await Promise.all([1, 2, 3].map(() => claimDueDeliveries(12, now, lease)))).flat().map((d) => d.id);
    expect(ids.length).toBeGreaterThanOrEqual(12);
    for (let round = 0; round < 5 && ids.length < 30; round++) {
      const more = await Promise.all([1, 2].map(() => claimDueDeliveries(12, now, lease)));
      ids.push(...more.flat().map((d) => d.id));
    }
    expect(ids.length).toBe(30);
    expect(new Set(ids).size).toBe(30);
    expect(await claimDueDeliveries(12, now, lease)).toEqual([]);
    await call(item.DELETE, jsonRequest(`/api/v1/webhooks/${hook.id}`, { method: "DELETE" }), params({ id: hook.id }));
  });

  it("gives up only after the retry window, and refuses a private target at delivery time without the opt-in", async () => {
    const hook = await createHook();
    const db = await getDb();
    await db.transaction((tx) => recordEvents(tx, [collapsed("old")]));
    await db.execute(
      sql`update webhook_events set created_at = now() - interval '25 hours' where dedupe_key = 'chain.collapsed:old'`,
    );
    delete process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE;
    const claimed = nth(await due(), 0);
    receiver.received.length = 0;
    expect(await deliverOne(claimed)).toBe(false);
    expect(receiver.received).toEqual([]);
    const log = await call(
      deliveriesRoute.GET,
      jsonRequest(`/api/v1/webhooks/${hook.id}/deliveries`),
      params({ id: hook.id }),
    );
    expect(log.body.items[0]).toMatchObject({ status: "abandoned", next_attempt_at: null, last_status: null });
    expect(log.body.items[0].last_error).toContain("private");
  });

  it("forgets old events once nothing is left to deliver, keeping pending ones", async () => {
    const hook = await createHook();
    const db = await getDb();
    await db.transaction((tx) => recordEvents(tx, [collapsed("old-done"), collapsed("old-pending")]));
    await db.execute(
      sql`update webhook_events set created_at = now() - interval '40 days' where dedupe_key like '%old-%'`,
    );
    await db.execute(
      sql`update webhook_deliveries set status = 'delivered' where event_id in (select id from webhook_events where dedupe_key like '%old-done%')`,
    );
    expect(await deleteSettledEvents(new Date(Date.now() - 30 * 86_400_000))).toBeGreaterThanOrEqual(1);
    const left = await db
      .select({ dedupe_key: webhookEvents.dedupeKey })
      .from(webhookEvents)
      .where(like(webhookEvents.dedupeKey, "%old-%"));
    expect(left.map((e) => e.dedupe_key)).toEqual(["chain.collapsed:old-pending"]);
    await call(item.DELETE, jsonRequest(`/api/v1/webhooks/${hook.id}`, { method: "DELETE" }), params({ id: hook.id }));
  });
});
