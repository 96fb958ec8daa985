// The webhook delivery worker: one loop per server process. The queue is the webhook_deliveries
// table, so every instance can run one: claims use SKIP LOCKED plus a lease, and all state
// survives a restart.
//
// Every attempt runs on its own, with its own deadline (webhook-send.ts): the loop claims
// more as soon as one ends, up to a number in flight, and at most a few for any one webhook
// at a time. So a receiver that answers slowly or never holds its own deliveries back, not
// anyone else's; and stopping waits a bounded time, whatever the receivers do.
import { type ClaimedDelivery, claimDueDeliveries, deleteSettledEvents, recordAttempt } from "../queries/webhooks";
import { errorFields, logger } from "@/lib/observability/log";
import { reportDatabaseTrouble } from "@/lib/errors";
import { recordDelivery } from "@/lib/observability/metrics";
import { nextAttemptAt } from "@/lib/webhooks/backoff";
import { pageUrl, renderBody, type EventData, type WebhookEvent } from "@/lib/webhooks/payload";
import { deliveryHeaders } from "@/lib/webhooks/signature";
import { SEND_TIMEOUT_MS, sendWebhook } from "./webhook-send";
import { type RunningWorker, runningWorker, type WorkerDefinition } from "./worker";
import { env, type EnvSource } from "@/lib/env";

const POLL_MS = 1_000;
/** Events (and their delivery log) are kept this long once nothing is left to send. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/** Attempts under way at once in one process, and to any one webhook. */
export const MAX_IN_FLIGHT = 16;
export const MAX_IN_FLIGHT_PER_WEBHOOK = 2;
/** Longer than an attempt can take, so a lease never runs out under a live attempt. */
const LEASE_MS = SEND_TIMEOUT_MS * 6;
/**
 * On stop: attempts under way get this long to finish, then are cut off (and recorded as due
 * again at once, for another instance or the next start); stop() returns within the second
 * bound whatever happens, leaving anything still unrecorded to its lease.
 */
export const STOP_GRACE_MS = 2_000;
export const STOP_LIMIT_MS = 5_000;

/** The address operators reach the dashboard at, for the links in deliveries. */
export function publicBaseUrl(source?: EnvSource): string {
  const configured = env("FLOORLINE_PUBLIC_URL", source);
  if (configured) return configured;
  const listen = env("HOST", source);
  const host = listen && listen !== "0.0.0.0" && listen !== "::" ? listen : "127.0.0.1";
  return `http://${host.includes(":") ? `[${host}]` : host}:${env("PORT", source) ?? 3000}`;
}

export async function deliverOne(
  delivery: ClaimedDelivery,
  options: { now?: () => Date; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<boolean> {
  const event = {
    id: delivery.event.id,
    type: delivery.event.type,
    data: delivery.event.data,
    created_at: delivery.event.created_at.toISOString(),
  } as unknown as WebhookEvent;
  event.url = pageUrl(publicBaseUrl(), event as EventData);
  const body = renderBody(event, delivery.format);
  const timestamp = Math.floor(Date.now() / 1000);
  const result = await sendWebhook(delivery.url, body, deliveryHeaders(delivery.secret, event, body, timestamp), {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
  const at = (options.now ?? (() => new Date()))();
  if (result.ok) {
    await recordAttempt(delivery, { ok: true, status: result.status, at });
    recordDelivery("delivered");
    return true;
  }
  // Cut off by the shutdown: no fault of the receiver's, so due again at once.
  const next = options.signal?.aborted ? at : nextAttemptAt(delivery.attempts, delivery.event.created_at, at);
  await recordAttempt(delivery, { ok: false, status: result.status, error: result.error, at, nextAttemptAt: next });
  recordDelivery(next ? "failed" : "abandoned");
  return false;
}

export interface Worker extends RunningWorker {
  /** Looks for due deliveries now instead of at the next tick. */
  poke(): void;
}

export interface WebhookWorkerOptions {
  pollMs?: number;
  /** Each attempt's deadline (SEND_TIMEOUT_MS). */
  sendTimeoutMs?: number;
  maxInFlight?: number;
  perWebhook?: number;
  stopGraceMs?: number;
  stopLimitMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());

export function startWebhookWorker(options: WebhookWorkerOptions = {}): Worker {
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  const perWebhook = options.perWebhook ?? MAX_IN_FLIGHT_PER_WEBHOOK;
  const leaseMs = Math.max(LEASE_MS, (options.sendTimeoutMs ?? SEND_TIMEOUT_MS) * 6);
  const stopping = new AbortController();
  const attempts = new Set<Promise<void>>();
  /** Attempts under way per webhook id: those webhooks are left out of the next claim. */
  const busy = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let claiming: Promise<void> | null = null;
  let claimAgain = false;
  let sweptAt = 0;

  const launch = (delivery: ClaimedDelivery) => {
    const hook = delivery.webhookId;
    busy.set(hook, (busy.get(hook) ?? 0) + 1);
    const attempt: Promise<void> = deliverOne(delivery, { signal: stopping.signal, timeoutMs: options.sendTimeoutMs })
      .then(
        () => {},
        (error: unknown) => {
          // The attempt could not be recorded (the database is away): its lease brings it back.
          logger.error(
            { err: errorFields(error), delivery: delivery.id },
            "webhook delivery: recording an attempt failed",
          );
        },
      )
      .finally(() => {
        attempts.delete(attempt);
        const left = (busy.get(hook) ?? 1) - 1;
        if (left > 0) busy.set(hook, left);
        else busy.delete(hook);
        poke();
      });
    attempts.add(attempt);
  };

  const claim = async () => {
    if (Date.now() - sweptAt > SWEEP_EVERY_MS) {
      sweptAt = Date.now();
      await deleteSettledEvents(new Date(Date.now() - EVENT_RETENTION_MS));
    }
    while (!stopped && attempts.size < maxInFlight) {
      const now = new Date();
      const claimed = await claimDueDeliveries(maxInFlight - attempts.size, now, new Date(now.getTime() + leaseMs), {
        perWebhook,
        skip: [...busy.keys()],
      });
      // Claimed rows are leased: send them even if stopping began meanwhile (the stop cuts
      // them short and records them as due again).
      for (const delivery of claimed) launch(delivery);
      if (claimed.length === 0) break;
    }
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  };
  const run = () => {
    timer = null;
    if (stopped) return;
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = claim()
      .then(
        () => true,
        (error: unknown) => {
          // The database may be down; the rows wait, and the next tick tries again.
          if (!reportDatabaseTrouble(error, "webhook delivery"))
            logger.error({ err: errorFields(error) }, "webhook delivery: claiming due deliveries failed");
          return false;
        },
      )
      .then((ok) => {
        claiming = null;
        const again = ok && claimAgain;
        claimAgain = false;
        schedule(again ? 0 : (options.pollMs ?? POLL_MS));
      });
  };
  const poke = () => {
    if (stopped) return;
    if (claiming) claimAgain = true;
    else schedule(0);
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const until = Date.now() + (options.stopLimitMs ?? STOP_LIMIT_MS);
      const grace = setTimeout(() => stopping.abort(), options.stopGraceMs ?? STOP_GRACE_MS);
      try {
        await Promise.race([claiming, sleep(until - Date.now())]);
        await Promise.race([Promise.allSettled([...attempts]), sleep(until - Date.now())]);
      } finally {
        clearTimeout(grace);
        stopping.abort();
      }
      if (attempts.size > 0) {
        logger.warn(
          { attempts: attempts.size },
          "webhook deliveries still unrecorded at stop; their leases bring them back",
        );
      }
    },
    poke,
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
