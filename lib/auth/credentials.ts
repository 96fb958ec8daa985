// Credential crypto shared by the app and the CLI (`scripts/floorline.ts`): API keys, session
// tokens and operator passwords. Pure functions of node:crypto; nothing here stores anything.
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { env, type EnvSource } from "../env";
import { hashGate, type Lane } from "./hash-gate";

export const KEY_PREFIX = "fl";
export const KEY_SCOPES = ["ingest", "read", "admin"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const ROLES = ["viewer", "admin"] as const;
export type Role = (typeof ROLES)[number];

const KEY_ID_BYTES = 8;
// The contract asks for at least 32 random bytes of secret.
const KEY_SECRET_BYTES = 32;
const KEY_PATTERN = /^fl_([0-9a-f]{16})_([A-Za-z0-9_-]{43,128})$/;

/** SHA-256 hex of a high-entropy secret: enough for random keys and tokens (no dictionary to slow down). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/**
 * Equality of two strings in time that depends on neither their content nor their lengths:
 * both sides are hashed to the same length first.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = createHash("sha256").update(String(a), "utf8").digest();
  const y = createHash("sha256").update(String(b), "utf8").digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}

/** A new API key: the full key (shown once), its public id and the hash to store. */
export function generateApiKey(): { id: string; key: string; secretHash: string } {
  const id = randomBytes(KEY_ID_BYTES).toString("hex");
  const secret = randomBytes(KEY_SECRET_BYTES).toString("base64url");
  return { id, key: `${KEY_PREFIX}_${id}_${secret}`, secretHash: hashSecret(secret) };
}

/** `fl_<id>_<secret>` into its parts, or null for anything else. */
export function parseApiKey(text: string): { id: string; secret: string } | null {
  const match = KEY_PATTERN.exec(text);
  return match?.[1] && match[2] ? { id: match[1], secret: match[2] } : null;
}

/** Whether a presented secret matches the stored hash, in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  return constantTimeEqual(hashSecret(secret), storedHash);
}

/** A new session token (for the cookie) and the hash the sessions table keeps. */
export function generateSessionToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashSecret(token) };
}

// scrypt with N=2^17, r=8, p=1 (OWASP's figure: 128 MiB and a few hundred ms per hash):
// slow for a guesser, fine for a sign-in. Hashes made with other parameters still verify
// (the parameters travel with the hash) and are replaced at the next sign-in when weaker.
const PRODUCTION_N = 2 ** 17;
// Under vitest (NODE_ENV=test) N=2^14: the suites sign in hundreds of times to test the
// throttle and the gate, not scrypt, and at 2^17 they spent minutes hashing (Devise lowers
// its stretches in tests the same way). `npm start` and `next start` set production.
const TEST_N = 2 ** 14;

/** The parameters new hashes are made with, for an environment. */
export function scryptCost(source?: EnvSource): ScryptParams {
  return { N: env("NODE_ENV", source) === "test" ? TEST_N : PRODUCTION_N, r: 8, p: 1, keylen: 32 };
}
const SCRYPT = scryptCost();
// Room for the largest parameters accepted below; scrypt needs 128 * N * r bytes.
const SCRYPT_MAXMEM = 160 * 1024 * 1024;

interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keylen: number;
}

function scryptAsync(password: string, salt: Buffer, { N, r, p, keylen }: ScryptParams, lane: Lane): Promise<Buffer> {
  return hashGate().run(
    lane,
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize("NFC"), salt, keylen, { N, r, p, maxmem: SCRYPT_MAXMEM }, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      ),
  );
}

/** `scrypt$N$r$p$<salt b64url>$<hash b64url>`: the parameters travel with the hash, so they can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT, "normal");
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

function parseStored(stored: string): (ScryptParams & { salt: Buffer; hash: Buffer }) | null {
  const parts = String(stored).split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [, N, r, p, salt = "", hash = ""] = parts;
  const params = { N: Number(N), r: Number(r), p: Number(p) };
  // Only what this module could have written: a stored hash must not make us allocate more.
  if (![TEST_N / 2, TEST_N, 2 ** 15, 2 ** 16, PRODUCTION_N].includes(params.N) || params.r !== 8 || params.p !== 1)
    return null;
  const expected = Buffer.from(hash, "base64url");
  if (expected.length < 16) return null;
  return { ...params, keylen: expected.length, salt: Buffer.from(salt, "base64url"), hash: expected };
}

/**
 * Whether a password matches a stored hash. `lane` is the hash gate's line to wait in
 * (lib/auth/hash-gate.ts); a full line throws HashGateBusy.
 */
export async function verifyPassword(password: string, stored: string, lane: Lane = "normal"): Promise<boolean> {
  const parsed = parseStored(stored);
  // A row with an unreadable hash costs the same as any other, so timing does not tell.
  const params = parsed ?? { ...SCRYPT, salt: randomBytes(16), hash: Buffer.alloc(SCRYPT.keylen) };
  const actual = await scryptAsync(password, params.salt, params, lane);
  return parsed !== null && actual.length === params.hash.length && timingSafeEqual(actual, params.hash);
}

/** Whether a stored hash was made with weaker parameters than today's (rehash it at sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parseStored(stored);
  return parsed !== null && parsed.N < SCRYPT.N;
}

/** A hash that matches no password, at today's parameters: what an unknown name is checked against. */
export const UNMATCHABLE_HASH = [
  "scrypt",
  SCRYPT.N,
  SCRYPT.r,
  SCRYPT.p,
  Buffer.alloc(16, 7).toString("base64url"),
  Buffer.alloc(SCRYPT.keylen, 0).toString("base64url"),
].join("$");

/** Passwords shorter than this are refused when an operator is created. */
export const MIN_PASSWORD_LENGTH = 10;
