// Signing in and out, and the sessions and attempt counts behind them: an operator's password
// checked under the throttle's rules (lib/auth/throttle.ts), a session token made and touched,
// and a bearer key's failures counted per address. Keys and operators themselves: access.ts.
import "server-only";
import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/access";
import { scopesOfRole } from "@/lib/auth/access";
import {
  generateSessionToken,
  hashPassword,
  hashSecret,
  needsRehash,
  UNMATCHABLE_HASH,
  verifyPassword,
} from "@/lib/auth/credentials";
import { HashGateBusy } from "@/lib/auth/hash-gate";
import {
  BEARER_FAILURE_LIMIT,
  BEARER_WINDOW_MS,
  buckets,
  RECENT_SIGN_IN_MS,
  SIGN_IN_ADDRESS_SUSPECT,
  SIGN_IN_FAILURE_RATE,
  SIGN_IN_FAILURE_WINDOW_MS,
  SIGN_IN_PAIR_LIMIT,
  SIGN_IN_WINDOW_MS,
  secondsLeft,
} from "@/lib/auth/throttle";
import type { OperatorWire } from "@/lib/schemas/access";
import { getDb } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import { authAttempts, operators, sessions } from "../schema";
import { processSingleton } from "@/lib/process-singleton";
import { accessClock, TOUCH_EVERY_MS, toOperatorWire } from "./access";

export type SignInResult =
  | { ok: true; token: string; operator: OperatorWire }
  | { ok: false; reason: "wrong" }
  | { ok: false; reason: "throttled" | "busy"; retryAfterSeconds: number };

/**
 * Counts one attempt in a bucket and returns the count with the window's start, in one
 * statement: the row lock of the upsert orders parallel attempts (on every instance), so
 * each sees a distinct count and no burst can all pass a limit. A window older than
 * `windowMs` starts again at this attempt.
 */
async function countAttempt(bucket: string, windowMs: number): Promise<{ attempts: number; windowStart: Date }> {
  const db = await getDb();
  const now = accessClock.now();
  const since = new Date(now.getTime() - windowMs).toISOString();
  const row = onlyRow(
    await queryRows(
      db,
      sql`insert into ${authAttempts} (bucket, attempts, window_start)
        values (${bucket}, 1, ${now.toISOString()}::timestamptz)
        on conflict (bucket) do update set
          attempts = case when ${authAttempts.windowStart} <= ${since}::timestamptz then 1
                          else ${authAttempts.attempts} + 1 end,
          window_start = case when ${authAttempts.windowStart} <= ${since}::timestamptz then excluded.window_start
                              else ${authAttempts.windowStart} end
        returning attempts, window_start`,
      { attempts: col.int, window_start: col.date },
    ),
  );
  await forgetOldAttempts(now);
  return { attempts: row.attempts, windowStart: row.window_start };
}

/** The attempts in a bucket's current window (0 when none or the window is over). */
async function attemptsIn(bucket: string, windowMs: number): Promise<{ attempts: number; windowStart: Date } | null> {
  const db = await getDb();
  const since = new Date(accessClock.now().getTime() - windowMs);
  const [row] = await db
    .select()
    .from(authAttempts)
    .where(and(eq(authAttempts.bucket, bucket), gt(authAttempts.windowStart, since)));
  return row ? { attempts: row.attempts, windowStart: row.windowStart } : null;
}

// Buckets whose window is long over are deleted now and then (a spray of names leaves one
// row per name), at most once a minute per process.
const FORGET_EVERY_MS = 60_000;
const forgetting = processSingleton("auth-attempts-forget", () => ({ last: 0 }));

async function forgetOldAttempts(now: Date): Promise<void> {
  if (now.getTime() - forgetting.last < FORGET_EVERY_MS) return;
  forgetting.last = now.getTime();
  const db = await getDb();
  const oldest = new Date(now.getTime() - Math.max(SIGN_IN_WINDOW_MS, BEARER_WINDOW_MS));
  await db.delete(authAttempts).where(lt(authAttempts.windowStart, oldest));
}

/**
 * Checks a name and password from a client address (lib/auth/throttle.ts has the rules).
 * The attempt is counted before the password is hashed, so a burst of guesses at one name
 * from one address gets at most the limit's hashes; past it, the answer says how long to
 * wait, whatever the password.
 */
export async function signIn(name: string, password: string, address: string): Promise<SignInResult> {
  const db = await getDb();
  const key = name.trim().toLowerCase();
  const pair = await countAttempt(buckets.signInPair(key, address), SIGN_IN_WINDOW_MS);
  if (pair.attempts > SIGN_IN_PAIR_LIMIT) {
    return {
      ok: false,
      reason: "throttled",
      retryAfterSeconds: secondsLeft(pair.windowStart, SIGN_IN_WINDOW_MS, accessClock.now()),
    };
  }
  const failedHere = (await attemptsIn(buckets.signInAddress(address), SIGN_IN_WINDOW_MS))?.attempts ?? 0;
  const [row] = await db.select().from(operators).where(sql`lower(${operators.name}) = ${key}`);
  // A made-up name fails whatever the password: its failure is counted on the whole server
  // now, before the hash, so a burst of them cannot all pass the rate below at once.
  const serverFailures = row ? null : await countAttempt(buckets.signInFailures(), SIGN_IN_FAILURE_WINDOW_MS);
  const failed = async (): Promise<SignInResult> => {
    await countAttempt(buckets.signInAddress(address), SIGN_IN_WINDOW_MS);
    if (!serverFailures) await countAttempt(buckets.signInFailures(), SIGN_IN_FAILURE_WINDOW_MS);
    return { ok: false, reason: "wrong" };
  };
  // Under a spray (many failures on the whole server), a made-up name gets no hash: its
  // answer comes at once, and it takes no place in the line ahead of a real operator.
  if (serverFailures && serverFailures.attempts > SIGN_IN_FAILURE_RATE) return failed();
  const now = accessClock.now().getTime();
  const lane =
    failedHere >= SIGN_IN_ADDRESS_SUSPECT
      ? "slow"
      : row?.lastSignInAt && now - row.lastSignInAt.getTime() < RECENT_SIGN_IN_MS
        ? "first"
        : "normal";
  let valid: boolean;
  try {
    // Otherwise an unknown name costs the same hash as a known one, so timing does not tell them apart.
    valid = await verifyPassword(password, row?.passwordHash ?? UNMATCHABLE_HASH, lane);
  } catch (error) {
    if (error instanceof HashGateBusy) return { ok: false, reason: "busy", retryAfterSeconds: 1 };
    throw error;
  }
  if (!row || !valid || row.disabledAt) return failed();
  if (needsRehash(row.passwordHash)) {
    await db
      .update(operators)
      .set({ passwordHash: await hashPassword(password) })
      .where(eq(operators.id, row.id));
  }
  const { token, tokenHash } = generateSessionToken();
  const signedInAt = accessClock.now();
  await db
    .insert(sessions)
    .values({ id: tokenHash, operatorId: row.id, createdAt: signedInAt, lastSeenAt: signedInAt });
  await db.update(operators).set({ lastSignInAt: signedInAt }).where(eq(operators.id, row.id));
  await db.delete(authAttempts).where(eq(authAttempts.bucket, buckets.signInPair(key, address)));
  return { ok: true, token, operator: toOperatorWire(row) };
}

/** Seconds an address must wait before its next API key is even looked at, or 0. */
export async function bearerWaitSeconds(address: string): Promise<number> {
  const bucket = await attemptsIn(buckets.bearerAddress(address), BEARER_WINDOW_MS);
  if (!bucket || bucket.attempts < BEARER_FAILURE_LIMIT) return 0;
  return secondsLeft(bucket.windowStart, BEARER_WINDOW_MS, accessClock.now());
}

/** Counts a failed API key (or token) from an address. */
export async function recordBearerFailure(address: string): Promise<void> {
  await countAttempt(buckets.bearerAddress(address), BEARER_WINDOW_MS);
}

/**
 * The operator behind a session token, if the session is live: not ended, not idle longer
 * than `limits.idleMs`, and not older than `limits.maxMs` however busy.
 */
export async function authenticateSession(
  token: string,
  limits: { idleMs: number; maxMs: number },
): Promise<Principal | null> {
  const db = await getDb();
  const id = hashSecret(token);
  const now = accessClock.now();
  const [row] = await db
    .select({ session: sessions, operator: operators })
    .from(sessions)
    .innerJoin(operators, eq(operators.id, sessions.operatorId))
    .where(eq(sessions.id, id));
  if (!row || row.session.endedAt || row.operator.disabledAt) return null;
  if (now.getTime() - row.session.lastSeenAt.getTime() > limits.idleMs) return null;
  if (now.getTime() - row.session.createdAt.getTime() > limits.maxMs) return null;
  if (now.getTime() - row.session.lastSeenAt.getTime() >= Math.min(TOUCH_EVERY_MS, limits.idleMs / 10)) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id));
  }
  return {
    kind: "operator",
    id: row.operator.id,
    name: row.operator.name,
    role: row.operator.role,
    sessionId: id,
    scopes: scopesOfRole(row.operator.role),
  };
}

export async function endSession(token: string): Promise<void> {
  const db = await getDb();
  await db
    .update(sessions)
    .set({ endedAt: sql`now()` })
    .where(and(eq(sessions.id, hashSecret(token)), isNull(sessions.endedAt)));
}
