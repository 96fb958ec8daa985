// Store keys as Headroom makes them. Its Python store keys by SHA-256 (24 hex, or the 12 hex of
// SmartCrusher's markers), which our sha256 prefixes already are. Its other compressors key by
// the first 24 hex of an MD5 (the diff compressor) or a BLAKE3 (the Rust CCR store) of the
// original: those are kept beside the sha256 key, verified against the content when stored.
import { createHash } from "node:crypto";
import { blake3 } from "@noble/hashes/blake3.js";
import { MIN_PREFIX_LENGTH, parseHashKey } from "../rules";
import { sha256Hex } from "../../guard/hash";
import type { HashAlgorithm } from "./algorithms";

export { HASH_ALGORITHMS, type HashAlgorithm } from "./algorithms";
/** The alternate keys Headroom's other compressors make. */
type AlternateAlgorithm = Exclude<HashAlgorithm, "sha256">;

/** The length of the keys Headroom's markers carry. */
const HEADROOM_KEY_LENGTH = 24;

const DIGEST_LENGTH: Record<HashAlgorithm, number> = { sha256: 64, md5: 32, blake3: 64 };

/** The full hex digest of the original as UTF-8. */
export function digestOf(original: string, algorithm: HashAlgorithm): string {
  switch (algorithm) {
    case "sha256":
      return sha256Hex(original);
    case "md5":
      return createHash("md5").update(original, "utf8").digest("hex");
    case "blake3":
      return Buffer.from(blake3(Buffer.from(original, "utf8"))).toString("hex");
  }
}

/** Headroom's own key for an original: the first 24 hex of its digest. */
export function headroomKey(original: string, algorithm: HashAlgorithm): string {
  return digestOf(original, algorithm).slice(0, HEADROOM_KEY_LENGTH);
}

/**
 * A client's key under an alternate algorithm must be that digest of the original, or a prefix
 * of it of at least 12 hex (the rule sha256 keys follow). Returns the problem, or null.
 */
export function checkAlternateHash(clientHash: string, original: string, algorithm: AlternateAlgorithm): string | null {
  const parsed = parseHashKey(clientHash);
  if (!parsed.ok) return parsed.message;
  const digest = digestOf(original, algorithm);
  if (parsed.key.length > DIGEST_LENGTH[algorithm] || !digest.startsWith(parsed.key)) {
    return `is not the ${algorithm} of the original as UTF-8 (which is ${digest}) nor a prefix of it of at least ${MIN_PREFIX_LENGTH} hex characters`;
  }
  return null;
}

/** A key as the Headroom paths accept it: what our native retrieve accepts (12 to 64 hex, `hash=` allowed). */
export function parseRetrieveKey(value: unknown): { ok: true; key: string } | { ok: false; detail: string } {
  if (value === undefined || value === null || value === "") return { ok: false, detail: "hash required" };
  if (typeof value !== "string") return { ok: false, detail: "hash must be a string" };
  const parsed = parseHashKey(value);
  return parsed.ok ? { ok: true, key: parsed.key } : { ok: false, detail: `hash ${parsed.message}` };
}

/** The providers whose tool-call shapes `POST /v1/retrieve/tool_call` reads. */
export const TOOL_CALL_PROVIDERS = ["anthropic", "openai", "google"] as const;
