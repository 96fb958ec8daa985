import "server-only";
import { and, desc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/access";
import { scopesOfRole } from "@/lib/auth/access";
import {
  generateApiKey,
  generateSessionToken,
  hashPassword,
  hashSecret,
  type KeyScope,
  needsRehash,
  parseApiKey,
  type Role,
  secretMatches,
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
import type { ApiKeyWire, CreatedApiKeyWire, OperatorWire } from "@/lib/schemas/access";
import { getDb } from "../index";
import { type CreatedKey, newestFirstPage } from "../keyset";
import { col, onlyRow, queryRows } from "../sql";
import { apiKeys, authAttempts, operators, sessions } from "../schema";
import { processSingleton } from "@/lib/process-singleton";

/** The time the access queries judge expiry by; tests move it. */
export const accessClock = { now: () => new Date() };

// `last_used_at` and a session's `last_seen_at` are written at most this often, so a busy
// key costs one indexed read per request, not a write.
const TOUCH_EVERY_MS = 60_000;

// Whether any credential exists decides whether auth is on, and is asked on every request.
// Rows are never deleted (revoking keeps the row), so once true it stays true: only "none
// yet" is re-read, at most every few seconds. Creating a credential flips it at once on the
// instance that created it; other instances see it within CREDENTIALS_RECHECK_MS.
const CREDENTIALS_RECHECK_MS = 3_000;
const credentialsState = processSingleton("credentials", () => ({
  known: undefined as { exist: boolean; checkedAt: number } | undefined,
}));

export async function credentialsExist(): Promise<boolean> {
  const known = credentialsState.known;
  if (known && (known.exist || Date.now() - known.checkedAt < CREDENTIALS_RECHECK_MS)) return known.exist;
  let exist: boolean;
  try {
    const db = await getDb();
    const row = onlyRow(
      await queryRows(
        db,
        sql`select (exists (select 1 from ${apiKeys}) or exists (select 1 from ${operators})) as exist`,
        { exist: col.bool },
      ),
    );
    exist = row.exist;
  } catch (error) {
    // The database is down: keep the last answer (start-up always reads one) so the routes that
    // need no database (the stateless guard) keep working; with no answer yet, fail closed (503).
    if (known) return known.exist;
    throw error;
  }
  credentialsState.known = { exist, checkedAt: Date.now() };
  return exist;
}

/** Whether any operator exists (the sign-in page says how to make the first one when none does). */
export async function operatorsExist(): Promise<boolean> {
  const db = await getDb();
  const row = onlyRow(
    await queryRows(db, sql`select exists (select 1 from ${operators}) as exist`, { exist: col.bool }),
  );
  return row.exist;
}

/** Forgets the cached answer (tests switch databases under one process). */
export function forgetCredentialsCache(): void {
  credentialsState.known = undefined;
}

function credentialsCreated(): void {
  credentialsState.known = { exist: true, checkedAt: Date.now() };
}

function toKeyWire(row: typeof apiKeys.$inferSelect): ApiKeyWire {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** A new key; the full key is in the answer and nowhere else, ever. */
export async function createApiKey(input: {
  name: string;
  scopes: KeyScope[];
  createdBy: string | null;
}): Promise<Omit<CreatedApiKeyWire, "notice">> {
  const db = await getDb();
  const generated = generateApiKey();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: generated.id,
      name: input.name,
      scopes: input.scopes,
      secretHash: generated.secretHash,
      createdBy: input.createdBy,
    })
    .returning();
  if (!row) throw new Error("inserting an API key returned no row");
  credentialsCreated();
  return { ...toKeyWire(row), key: generated.key };
}

export async function listApiKeys(): Promise<ApiKeyWire[]> {
  const db = await getDb();
  const rows = await db.select().from(apiKeys).orderBy(desc(apiKeys.createdAt), apiKeys.id);
  return rows.map(toKeyWire);
}

/** One keyset page of keys, newest first: `after` is the last key's (created_at, id). */
export async function listApiKeyPage(query: {
  limit: number;
  after?: CreatedKey;
}): Promise<{ items: ApiKeyWire[]; next: [string, string] | null }> {
  const db = await getDb();
  const page = await newestFirstPage(query, (olderThan, limit) =>
    db.select().from(apiKeys).where(olderThan(apiKeys)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).limit(limit),
  );
  return { items: page.items.map(toKeyWire), next: page.next };
}

/** Revokes a key; false when there is no such key. Revoking twice is not an error. */
export async function revokeApiKey(id: string): Promise<ApiKeyWire | null> {
  const db = await getDb();
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(eq(apiKeys.id, id))
    .returning();
  return row ? toKeyWire(row) : null;
}

/**
 * The key a bearer token names, if it is a live key whose secret matches. Read from the
 * database on every request, so a revocation holds on every instance from the next request.
 */
export async function authenticateApiKey(token: string): Promise<Principal | null> {
  const parsed = parseApiKey(token);
  if (!parsed) return null;
  const db = await getDb();
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, parsed.id));
  if (!row || !secretMatches(parsed.secret, row.secretHash) || row.revokedAt) return null;
  const now = accessClock.now();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
    await db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, now))));
  }
  return { kind: "key", id: row.id, name: row.name, scopes: row.scopes };
}

function toOperatorWire(row: typeof operators.$inferSelect): OperatorWire {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    disabled_at: row.disabledAt?.toISOString() ?? null,
  };
}

/** A new operator, or null when the name is taken (names are unique regardless of case). */
export async function createOperator(input: {
  name: string;
  role: Role;
  password: string;
}): Promise<OperatorWire | null> {
  const db = await getDb();
  const passwordHash = await hashPassword(input.password);
  const [row] = await db
    .insert(operators)
    .values({ name: input.name, role: input.role, passwordHash })
    .onConflictDoNothing()
    .returning();
  if (!row) return null;
  credentialsCreated();
  return toOperatorWire(row);
}

// Any constant will do: it names "the first operator" among the advisory locks of this database.
const FIRST_OPERATOR_LOCK = 0x666c6f70;

/**
 * The first operator, an admin, or null when any operator exists already. Two of these at
 * once (two browsers, two instances on one PostgreSQL) leave exactly one: each checks and
 * inserts under one transaction-scoped advisory lock, so the second sees the first's row.
 */
export async function createFirstOperator(input: { name: string; password: string }): Promise<OperatorWire | null> {
  const db = await getDb();
  // Hashed before the lock: the hash takes a fraction of a second that no one should wait on.
  const passwordHash = await hashPassword(input.password);
  const row = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${FIRST_OPERATOR_LOCK})`);
    const [existing] = await tx.select({ id: operators.id }).from(operators).limit(1);
    if (existing) return null;
    const [created] = await tx
      .insert(operators)
      .values({ name: input.name, role: "admin", passwordHash })
      .onConflictDoNothing()
      .returning();
    return created ?? null;
  });
  if (!row) return null;
  credentialsCreated();
  return toOperatorWire(row);
}

export async function listOperators(): Promise<OperatorWire[]> {
  const db = await getDb();
  return (await db.select().from(operators).orderBy(operators.name)).map(toOperatorWire);
}

/** Disables an operator and ends every session of theirs at once. */
export async function disableOperator(id: number): Promise<OperatorWire | null> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(operators)
      .set({ disabledAt: sql`coalesce(${operators.disabledAt}, now())` })
      .where(eq(operators.id, id))
      .returning();
    if (!row) return null;
    await tx
      .update(sessions)
      .set({ endedAt: sql`now()` })
      .where(and(eq(sessions.operatorId, id), isNull(sessions.endedAt)));
    return toOperatorWire(row);
  });
}

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
