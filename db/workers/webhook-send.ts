// One HTTP POST of a webhook delivery, to the address that was checked. The host name is
// resolved and every address checked (lib/webhooks/target.ts) right before the request,
// and the connection goes to that address (a pinned `lookup`), so a name that answers a
// public address to the check and a private one to the connection (DNS rebinding) gets
// nowhere. Redirects are not followed: a 3xx is a failed attempt, since its Location
// could point anywhere.
//
// An attempt has one total deadline, from the name lookup to the last byte read, not an idle
// timeout: a receiver that sends a byte every few seconds would otherwise hold it for ever.
// A 2xx is judged on its status line alone (its body is never read), and of any other answer
// only the first bytes are read, for the delivery log.
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { ApiError } from "@/lib/errors";
import { processSingleton } from "@/lib/process-singleton";
import {
  allowPrivateTargets,
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolveWebhookTarget,
} from "@/lib/webhooks/target";

/** The most one attempt may take, lookup, connection, request and answer together. */
export const SEND_TIMEOUT_MS = 10_000;
/** Enough of the receiver's answer to show in the delivery log; the rest is never read. */
export const MAX_ANSWER_BYTES = 1024;

export type SendResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

async function resolveAll(hostname: string): Promise<ResolvedAddress[]> {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/**
 * Name lookups under way at once in the process. getaddrinfo runs on libuv's thread pool (4
 * threads), which password hashing and file I/O share, and a lookup cannot be cancelled: name
 * servers that never answer must not take the whole pool. An attempt waits its turn within its
 * own deadline, and a lookup keeps its place until it really ends, abandoned or not.
 */
export const MAX_LOOKUPS = 2;
const lookups = processSingleton("webhookLookups", () => ({ running: 0, waiting: [] as (() => void)[] }));

async function lookupTurn(signal: AbortSignal): Promise<void> {
  if (lookups.running < MAX_LOOKUPS) {
    lookups.running++;
    return;
  }
  // Woken by a lookup that ended, which hands its place over.
  await new Promise<void>((resolve, reject) => {
    const wake = () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      const i = lookups.waiting.indexOf(wake);
      if (i >= 0) lookups.waiting.splice(i, 1);
      reject(signal.reason);
    };
    lookups.waiting.push(wake);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function lookupEnded(): void {
  const next = lookups.waiting.shift();
  if (next) next();
  else lookups.running--;
}

/** `resolve(hostname)` in its turn, given up (not cancelled) when `signal` aborts. */
async function gatedResolve(resolve: Resolver, hostname: string, signal: AbortSignal): Promise<ResolvedAddress[]> {
  await lookupTurn(signal);
  const lookup = resolve(hostname);
  lookup.then(lookupEnded, lookupEnded);
  return untilAborted(lookup, signal);
}

/** `work`, or a rejection as soon as `signal` aborts (the lookup itself cannot be cancelled). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export async function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: {
    allowPrivate?: boolean;
    timeoutMs?: number;
    resolve?: Resolver;
    /** Ends the attempt early (the server is stopping). */
    signal?: AbortSignal;
  } = {},
): Promise<SendResult> {
  const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const cutOff = () =>
    options.signal?.aborted
      ? "stopped: the server shut down during the attempt"
      : `no answer within ${timeoutMs / 1000} s`;
  try {
    const resolve = options.resolve ?? resolveAll;
    let target: Awaited<ReturnType<typeof resolveWebhookTarget>>;
    try {
      target = await resolveWebhookTarget(url, {
        resolve: (hostname) => gatedResolve(resolve, hostname, signal),
        allowPrivate: options.allowPrivate ?? allowPrivateTargets(),
      });
    } catch {
      return { ok: false, status: null, error: cutOff() };
    }
    if (signal.aborted) return { ok: false, status: null, error: cutOff() };
    if (!target.ok) return { ok: false, status: null, error: `refused: the URL ${target.reason}` };
    return await post(target.url, target.address, body, headers, signal, cutOff);
  } finally {
    clearTimeout(timer);
  }
}

function post(
  url: URL,
  address: ResolvedAddress,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  cutOff: () => string,
): Promise<SendResult> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise<SendResult>((resolve) => {
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    const answer = () => Buffer.concat(chunks).toString("utf8").slice(0, MAX_ANSWER_BYTES).trim();
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      // Nothing more is wanted from this connection (its agent keeps none alive).
      request.destroy();
      resolve(result);
    };
    const failed = (code: number) => {
      const text = answer();
      return { ok: false as const, status: code, error: `the receiver answered ${code}${text ? `: ${text}` : ""}` };
    };
    const onAbort = () => {
      if (status === null) return finish({ ok: false, status: null, error: cutOff() });
      // The status came, the rest of the answer did not: judge on what was read.
      finish(failed(status));
    };
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(address) as never,
        agent: false,
      },
      (response) => {
        status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) return finish({ ok: true, status });
        const code = status;
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
          size += chunk.length;
          if (size >= MAX_ANSWER_BYTES) finish(failed(code));
        });
        response.on("end", () => finish(failed(code)));
        response.on("error", () => finish(failed(code)));
      },
    );
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) return onAbort();
    request.on("error", (error) => finish({ ok: false, status, error: error.message }));
    request.end(body);
  });
}

/** The API's check when a webhook is saved: the same resolution and rules as every delivery. */
export async function assertDeliverable(url: string): Promise<void> {
  const signal = AbortSignal.timeout(SEND_TIMEOUT_MS);
  const target = await resolveWebhookTarget(url, {
    resolve: (hostname) => gatedResolve(resolveAll, hostname, signal),
    allowPrivate: allowPrivateTargets(),
  });
  if (!target.ok) {
    throw new ApiError("validation_failed", `The webhook URL ${target.reason}.`, {
      issues: [{ path: "url", message: target.reason }],
    });
  }
}
