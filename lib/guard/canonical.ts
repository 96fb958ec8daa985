import { sha256Hex } from "./hash";

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * JSON with object keys sorted at every level: equal values give equal text. Keys that are
 * array indices come first in numeric order, as JavaScript orders them in any object;
 * stored digests depend on that order, so it must not change.
 */
export function canonicalJson(value: unknown): string {
  return encode(value) ?? "null";
}

function encode(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === "function") return encode(withJson.toJSON());
  if (Array.isArray(value)) return "[" + value.map((v) => encode(v) ?? "null").join(",") + "]";
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  let indices = 0;
  for (const key of keys) {
    if (!ARRAY_INDEX.test(key) || Number(key) >= 4294967295) break;
    indices++;
  }
  const named = keys.slice(indices).sort();
  let out = "";
  for (const key of indices === 0 ? named : keys.slice(0, indices).concat(named)) {
    const text = encode(obj[key]);
    if (text !== undefined) out += (out ? "," : "") + JSON.stringify(key) + ":" + text;
  }
  return "{" + out + "}";
}

/** The idempotency fingerprint of a write: the same item re-sent has the same digest. */
export function bodyDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
