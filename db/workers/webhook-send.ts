// One HTTP POST of a webhook delivery, to the address that was checked. The host name is
// resolved and every address checked (lib/webhooks/target.ts) right before the request,
// and the connection goes to that address (a pinned `lookup`), so a name that answers a
// public address to the check and a private one to the connection (DNS rebinding) gets
// nowhere. Redirects are not followed: a 3xx is a failed attempt, since its Location
// could point anywhere.
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { ApiError } from "@/lib/errors";
import {
  allowPrivateTargets,
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolveWebhookTarget,
} from "@/lib/webhooks/target";

export const SEND_TIMEOUT_MS = 10_000;
/** Enough of the receiver's answer to show in the delivery log; the rest is drained. */
const MAX_ANSWER_BYTES = 1024;

export type SendResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

async function resolveAll(hostname: string): Promise<ResolvedAddress[]> {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

export async function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate?: boolean; timeoutMs?: number; resolve?: Resolver } = {},
): Promise<SendResult> {
  const target = await resolveWebhookTarget(url, {
    resolve: options.resolve ?? resolveAll,
    allowPrivate: options.allowPrivate ?? allowPrivateTargets(),
  });
  if (!target.ok) return { ok: false, status: null, error: `refused: the URL ${target.reason}` };
  const client = target.url.protocol === "https:" ? https : http;
  const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
  return new Promise<SendResult>((resolve) => {
    const request = client.request(
      target.url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(target.address) as never,
        timeout: timeoutMs,
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", () => {
          if (status >= 200 && status < 300) return resolve({ ok: true, status });
          const answer = Buffer.concat(chunks).toString("utf8").slice(0, MAX_ANSWER_BYTES).trim();
          resolve({ ok: false, status, error: `the receiver answered ${status}${answer ? `: ${answer}` : ""}` });
        });
        response.on("error", (error) => resolve({ ok: false, status, error: error.message }));
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    request.on("error", (error) => resolve({ ok: false, status: null, error: error.message }));
    request.end(body);
  });
}

/** The API's check when a webhook is saved: the same resolution and rules as every delivery. */
export async function assertDeliverable(url: string): Promise<void> {
  const target = await resolveWebhookTarget(url, { resolve: resolveAll, allowPrivate: allowPrivateTargets() });
  if (!target.ok) {
    throw new ApiError("validation_failed", `The webhook URL ${target.reason}.`, {
      issues: [{ path: "url", message: target.reason }],
    });
  }
}
