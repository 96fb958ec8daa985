// The delivery worker against real receivers: one that never finishes its answer holds back
// only its own deliveries, and stopping the worker takes a bounded time whatever it does.
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/index";
import { webhookDeliveries } from "@/db/schema";
import { createWebhook, enqueueTestEvent } from "@/db/queries/webhooks";
import { startWebhookWorker, type Worker } from "@/db/workers/webhook-delivery";
import { type Receiver, type StuckReceiver, startReceiver, startStuckReceiver } from "../support/receiver";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

let fast: Receiver;
let stuck: StuckReceiver;
let worker: Worker | undefined;
beforeAll(async () => {
  process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE = "1";
  fast = await startReceiver();
  stuck = await startStuckReceiver("drip", 100);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  const db = await getDb();
  await db.execute(sql`delete from webhooks`);
  await db.execute(sql`delete from webhook_events`);
});
afterAll(async () => {
  delete process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE;
  await fast.close();
  await stuck.close();
});

const hook = (url: string) => createWebhook({ url, events: ["chain.collapsed"], format: "json" }, "whsec_test");

async function deliveries(webhookId: string) {
  const db = await getDb();
  return db
    .select({
      status: webhookDeliveries.status,
      last_error: webhookDeliveries.lastError,
      next_attempt_at: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId));
}

describe("the delivery worker", () => {
  it("keeps delivering to other webhooks while one receiver never finishes its answers", async () => {
    const slow = await hook(stuck.url);
    const other = await hook(fast.url);
    // The stuck receiver's backlog is older than the other's deliveries, and longer than any
    // batch: a worker that waits on each batch as a whole never reaches the others.
    for (let i = 0; i < 20; i++) await enqueueTestEvent(slow.id);
    for (let i = 0; i < 3; i++) await enqueueTestEvent(other.id);
    fast.received.length = 0;
    const opened = stuck.connections;
    const closed = stuck.closed;
    worker = startWebhookWorker({ pollMs: 100, sendTimeoutMs: 60_000 });
    // Generous for a loaded machine; a worker that waits on the stuck attempts never gets there.
    await fast.waitFor(3, 20_000);
    await expect.poll(() => stuck.connections - opened, { timeout: 5_000 }).toBeGreaterThan(0);
    // ...while the stuck attempts are still under way, and only a few of them at once.
    expect(stuck.closed).toBe(closed);
    expect(stuck.connections - opened).toBeLessThanOrEqual(2);
    // The receiver has the third request a moment before the worker records its answer.
    await expect
      .poll(async () => (await deliveries(other.id)).map((d) => d.status), { timeout: 10_000 })
      .toEqual(["delivered", "delivered", "delivered"]);
  });

  it("stops within its bound with attempts stuck, and leaves them due again", async () => {
    const slow = await hook(stuck.url);
    for (let i = 0; i < 4; i++) await enqueueTestEvent(slow.id);
    const before = stuck.connections;
    worker = startWebhookWorker({ pollMs: 100, sendTimeoutMs: 60_000, stopGraceMs: 300, stopLimitMs: 5_000 });
    await expect.poll(() => stuck.connections - before, { timeout: 10_000 }).toBe(2);
    const started = Date.now();
    await worker.stop();
    worker = undefined;
    expect(Date.now() - started).toBeLessThan(5_500);
    const rows = await deliveries(slow.id);
    const cut = rows.filter((d) => d.last_error?.includes("shut down"));
    expect(cut.length).toBe(2);
    for (const d of cut) {
      expect(d.status).toBe("pending");
      expect(d.next_attempt_at?.getTime()).toBeLessThanOrEqual(Date.now());
    }
  });
});
