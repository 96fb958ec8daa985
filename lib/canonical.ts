import { sha256Hex } from "./hash";

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/** The idempotency fingerprint of a write: the same item re-sent has the same digest. */
export function bodyDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
