// Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>" with the webhook's secret, sent
// as `X-Floorline-Signature: sha256=<hex>` beside `X-Floorline-Timestamp` (Unix seconds).
// Signing the timestamp with the body lets a receiver refuse an old delivery replayed.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const SIGNATURE_PREFIX = "sha256=";
/** How far a receiver's clock may be from the timestamp before `verifySignature` refuses it. */
const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new webhook secret: 32 random bytes, base64url, with a prefix that says what it is. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export function signPayload(secret: string, timestamp: number, body: string): string {
  return SIGNATURE_PREFIX + createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
}

/** What a receiver does: recompute, compare in constant time, and check the timestamp's age. */
export function verifySignature(
  secret: string,
  header: { timestamp: string | null | undefined; signature: string | null | undefined },
  body: string,
  options: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  if (!header.timestamp || !header.signature || !/^\d{1,12}$/.test(header.timestamp)) return false;
  const timestamp = Number(header.timestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, body));
  const given = Buffer.from(header.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The headers of one delivery attempt; the delivery id is the event id, stable across retries. */
export function deliveryHeaders(
  secret: string,
  event: { id: string; type: string },
  body: string,
  timestamp: number,
): Record<string, string> {
  return {
    "content-type": "application/json; charset=utf-8",
    "user-agent": "Floorline-Webhooks/1",
    "x-floorline-event": event.type,
    "x-floorline-delivery": event.id,
    "x-floorline-timestamp": String(timestamp),
    "x-floorline-signature": signPayload(secret, timestamp, body),
  };
}
