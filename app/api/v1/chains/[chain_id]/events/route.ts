import { shutdownSignal } from "@/db/lifecycle";
import { getChainVersion } from "@/db/queries/chains";
import { foldQueuedChain } from "@/db/ingest/summaries";
import type { ChainVersion } from "@/lib/chains/types";
import { chainNotificationsLive, getSharedChainVersion, subscribeChainChanges } from "@/db/queries/chain-events";
import { ApiError } from "@/lib/errors";
import { errorFields, logger } from "@/lib/observability/log";
import { serve } from "@/app/_access/api-route";
import { CHAIN_ROUTES } from "@/lib/routes/chains";
import { authorizeRequest } from "@/app/_access/gate";
import { processSingleton } from "@/lib/process-singleton";
import { callerOf, type Slot, SlotCounter, type SlotRefusal } from "@/lib/http/slots";
import { env } from "@/lib/env";

// How often the chain summary is read for each open stream when nothing says it changed: every
// instance hears each write (NOTIFY; on the embedded database, its one process), so this is
// only a safety net, and POLL_MS applies only where LISTEN could not be set up. And how long
// one stream lives before the browser's EventSource reconnects (so no connection outlives a
// deploy for long).
const POLL_MS = 1_000;
const SAFETY_POLL_MS = 15_000;
const KEEPALIVE_MS = 15_000;
const LIFETIME_MS = 10 * 60_000;
// A revoked key or ended session also ends the streams it opened, within this long.
const RECHECK_ACCESS_MS = 10_000;

// Open streams per process, and per caller (API key or operator session): each holds a
// connection and a timer, so past either limit a new one is refused with 429 and Retry-After.
// The place is taken before the first await, so streams opened together cannot overshoot.
const limits = () => ({
  global: env("FLOORLINE_MAX_EVENT_STREAMS") ?? 1_000,
  perCaller: env("FLOORLINE_MAX_EVENT_STREAMS_PER_CALLER") ?? 100,
});
const openStreams = processSingleton("openStreams", () => new SlotCounter());
const RETRY_AFTER_SECONDS = "5";

function refused(by: SlotRefusal): ApiError {
  const { global, perCaller } = limits();
  return new ApiError(
    "too_many_requests",
    by === "global"
      ? `This server already holds the ${global} event streams it allows; retry shortly.`
      : `This credential already holds the ${perCaller} event streams one caller may; close one or retry shortly.`,
    { headers: { "Retry-After": RETRY_AFTER_SECONDS } },
  );
}

const same = (a: ChainVersion | null, b: ChainVersion) =>
  a !== null &&
  a.pass_count === b.pass_count &&
  a.boundary_count === b.boundary_count &&
  a.last_activity_at === b.last_activity_at;

/**
 * Server-sent events for an open chain page: `version` once with the chain's counts, then
 * `change` whenever a pass or boundary arrives. Reads the one-row chain summary (one read per
 * chain per moment, shared by all its streams), so it works whichever instance took the write.
 * An unknown chain is a 404, unless `?wait=1` (a chain page opened before the chain's first
 * receipt): then `waiting` once, and `change` when the first receipt lands.
 */
export const { GET, POST, PUT, PATCH, DELETE } = serve(CHAIN_ROUTES.events, {
  GET: async (request, { params }, principal) => {
    const slot = openStreams.take(callerOf(principal), limits());
    if (typeof slot === "string") throw refused(slot);
    try {
      return await openStream(request, (await params).chain_id, slot);
    } catch (error) {
      slot.release();
      throw error;
    }
  },
});

/** The stream itself; `slot` is given back when it ends (or by the caller, if this throws). */
async function openStream(request: Request, chainId: string, slot: Slot): Promise<Response> {
  const live = await chainNotificationsLive();
  const changes = subscribeChainChanges(chainId);
  // A chain whose first passes another instance stored and has not folded yet is folded
  // here, so it is not reported missing. Read again either way: the other instance's fold
  // may have committed between the first read and the look into the queue.
  const found = await getChainVersion(chainId)
    .then(async (version) => {
      if (version) return version;
      await foldQueuedChain(chainId);
      return getChainVersion(chainId);
    })
    .catch((error: unknown) => {
      changes.close();
      throw error;
    });
  const wait = new URL(request.url).searchParams.get("wait") === "1";
  if (!found && !wait) {
    changes.close();
    throw new ApiError("not_found", `No chain ${JSON.stringify(chainId)} has any receipts.`);
  }
  let current: ChainVersion | null = found;
  const encoder = new TextEncoder();
  // Stops on whichever comes first: the request aborting or the response stream being cancelled.
  const stop = new AbortController();
  // Server shutdown ends every stream too; the browser's EventSource reconnects later.
  const signal = AbortSignal.any([stop.signal, request.signal, shutdownSignal()]);
  const body = new ReadableStream<Uint8Array>({
    cancel() {
      stop.abort();
    },
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      send(
        current
          ? `retry: 3000\nevent: version\ndata: ${JSON.stringify(current)}\n\n`
          : `retry: 3000\nevent: waiting\ndata: ${JSON.stringify({ chain_id: chainId })}\n\n`,
      );
      const started = Date.now();
      let quietSince = Date.now();
      let checkedAccess = Date.now();
      try {
        while (!signal.aborted && Date.now() - started < LIFETIME_MS) {
          await changes.next(live ? SAFETY_POLL_MS : POLL_MS, signal);
          if (signal.aborted) break;
          if (Date.now() - checkedAccess >= RECHECK_ACCESS_MS) {
            const allowed = await authorizeRequest(request, "read").then(
              () => true,
              () => false,
            );
            if (!allowed) break;
            checkedAccess = Date.now();
          }
          const next = await getSharedChainVersion(chainId);
          if (next && !same(current, next)) {
            current = next;
            send(`event: change\ndata: ${JSON.stringify(next)}\n\n`);
            quietSince = Date.now();
          } else if (Date.now() - quietSince >= KEEPALIVE_MS) {
            send(": keep-alive\n\n");
            quietSince = Date.now();
          }
        }
        controller.close();
      } catch (error) {
        if (!signal.aborted) logger.error({ err: errorFields(error) }, "chain event stream failed");
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      } finally {
        changes.close();
        slot.release();
      }
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
