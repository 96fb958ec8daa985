// The webhook delivery worker: one loop per server process. The queue is the webhook_deliveries table, so every instance can
// run one: claims use SKIP LOCKED plus a lease, and all state survives a restart.
import { type ClaimedDelivery, claimDueDeliveries, deleteSettledEvents, recordAttempt } from "../queries/webhooks";
import { recordDelivery } from "@/lib/observability/metrics";
import { nextAttemptAt } from "@/lib/webhooks/backoff";
import { pageUrl, renderBody, type EventData, type WebhookEvent } from "@/lib/webhooks/payload";
import { deliveryHeaders } from "@/lib/webhooks/signature";
import { SEND_TIMEOUT_MS, sendWebhook } from "./webhook-send";
import { type RunningWorker, runningWorker, type WorkerDefinition } from "./worker";
import { env } from "@/lib/env";

const POLL_MS = 1_000;
/** Events (and their delivery log) are kept this long once nothing is left to send. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
const BATCH = 10;
/** Longer than an attempt can take, so a lease never runs out under a live attempt. */
const LEASE_MS = SEND_TIMEOUT_MS * 6;

/** The address operators reach the dashboard at, for the links in deliveries. */
export function publicBaseUrl(source: NodeJS.ProcessEnv = process.env): string {
  const configured = env("FLOORLINE_PUBLIC_URL", source);
  if (configured) return configured;
  const listen = env("HOST", source);
  const host = listen && listen !== "0.0.0.0" && listen !== "::" ? listen : "127.0.0.1";
  return `http://${host.includes(":") ? `[${host}]` : host}:${env("PORT", source) ?? 3000}`;
}

export async function deliverOne(delivery: ClaimedDelivery, now = () => new Date()): Promise<boolean> {
  const event = {
    id: delivery.event.id,
    type: delivery.event.type,
    data: delivery.event.data,
    created_at: delivery.event.created_at.toISOString(),
  } as unknown as WebhookEvent;
  event.url = pageUrl(publicBaseUrl(), event as EventData);
  const body = renderBody(event, delivery.format);
  const timestamp = Math.floor(Date.now() / 1000);
  const result = await sendWebhook(delivery.url, body, deliveryHeaders(delivery.secret, event, body, timestamp));
  const at = now();
  if (result.ok) {
    await recordAttempt(delivery, { ok: true, status: result.status, at });
    recordDelivery("delivered");
    return true;
  }
  const next = nextAttemptAt(delivery.attempts, delivery.event.created_at, at);
  await recordAttempt(delivery, { ok: false, status: result.status, error: result.error, at, nextAttemptAt: next });
  recordDelivery(next ? "failed" : "abandoned");
  return false;
}

export interface Worker extends RunningWorker {
  /** Looks for due deliveries now instead of at the next tick. */
  poke(): void;
}

export function startWebhookWorker(options: { pollMs?: number } = {}): Worker {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let sweptAt = 0;

  const tick = async () => {
    if (Date.now() - sweptAt > SWEEP_EVERY_MS) {
      sweptAt = Date.now();
      await deleteSettledEvents(new Date(Date.now() - EVENT_RETENTION_MS));
    }
    while (!stopped) {
      const now = new Date();
      const claimed = await claimDueDeliveries(BATCH, now, new Date(now.getTime() + LEASE_MS));
      if (claimed.length === 0) break;
      await Promise.all(claimed.map((d) => deliverOne(d)));
    }
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(run, ms);
    timer.unref();
  };
  const run = () => {
    timer = null;
    if (running) return;
    running = tick()
      .catch((error) => {
        // The database may be down; the rows wait, and the next tick tries again.
        console.error("[floorline] webhook worker:", error);
      })
      .finally(() => {
        running = null;
        schedule(options.pollMs ?? POLL_MS);
      });
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    poke() {
      if (!running && timer) {
        clearTimeout(timer);
        schedule(0);
      }
    },
  };
}

export const webhookDelivery: WorkerDefinition<Worker> = {
  name: "webhook-delivery",
  start: () => startWebhookWorker(),
};

/** Wakes this process's worker, if it runs one, to send what was just queued. */
export function pokeWebhookWorker(): void {
  runningWorker(webhookDelivery)?.poke();
}
