import "server-only";
import { and, count, desc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/access";
import { scopesOfRole, SIGN_IN_WINDOW_MS, signInDelaySeconds } from "@/lib/auth/access";
import {
  generateApiKey,
  generateSessionToken,
  hashPassword,
  hashSecret,
  type KeyScope,
  parseApiKey,
  type Role,
  secretMatches,
  verifyPassword,
} from "@/lib/auth/credentials";
import type { ApiKeyWire, CreatedApiKeyWire } from "@/lib/schemas/access";
import { getDb } from "../index";
import { queryRows } from "../sql";
import { apiKeys, operators, sessions, signInFailures } from "../schema";
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
    const [row] = await queryRows<{ exist: boolean }>(
      db,
      sql`select (exists (select 1 from ${apiKeys}) or exists (select 1 from ${operators})) as exist`,
    );
    exist = Boolean(row?.exist);
  } catch (error) {
    // The database is down: keep the last answer (start-up always reads one) so the routes that
    // need no database (the stateless guard) keep working; with no answer yet, fail closed (503).
    if (known) return known.exist;
    throw error;
  }
  credentialsState.known = { exist, checkedAt: Date.now() };
  return exist;
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
}): Promise<CreatedApiKeyWire> {
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

export interface OperatorWire {
  id: number;
  name: string;
  role: Role;
  created_at: string;
  disabled_at: string | null;
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
  | { ok: false; retryAfterSeconds: number };

/**
 * Checks a name and password. Failures are recorded per name and per address, and past a
 * few of them every attempt waits (refused with the seconds to wait) whatever the password.
 */
export async function signIn(name: string, password: string, address: string): Promise<SignInResult> {
  const db = await getDb();
  const now = accessClock.now();
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
  const key = name.trim().toLowerCase();
  const [[byName], [byAddress]] = await Promise.all([
    db
      .select({ n: count() })
      .from(signInFailures)
      .where(and(eq(signInFailures.name, key), gt(signInFailures.failedAt, since))),
    db
      .select({ n: count() })
      .from(signInFailures)
      .where(and(eq(signInFailures.address, address), gt(signInFailures.failedAt, since))),
  ]);
  const wait = signInDelaySeconds(byName?.n ?? 0, byAddress?.n ?? 0);
  if (wait > 0) {
    const [last] = await db
      .select({ at: signInFailures.failedAt })
      .from(signInFailures)
      .where(or(eq(signInFailures.name, key), eq(signInFailures.address, address)))
      .orderBy(desc(signInFailures.failedAt))
      .limit(1);
    const remaining = Math.ceil(((last?.at.getTime() ?? 0) + wait * 1000 - now.getTime()) / 1000);
    if (remaining > 0) return { ok: false, retryAfterSeconds: remaining };
  }
  const [row] = await db.select().from(operators).where(sql`lower(${operators.name}) = ${key}`);
  // An unknown name costs the same hash as a known one, so timing does not tell them apart.
  const valid = await verifyPassword(password, row?.passwordHash ?? DUMMY_HASH);
  if (!row || !valid || row.disabledAt) {
    await db.insert(signInFailures).values({ name: key, address, failedAt: now });
    return { ok: false, retryAfterSeconds: 0 };
  }
  const { token, tokenHash } = generateSessionToken();
  await db.insert(sessions).values({ id: tokenHash, operatorId: row.id, createdAt: now, lastSeenAt: now });
  await db.delete(signInFailures).where(eq(signInFailures.name, key));
  return { ok: true, token, operator: toOperatorWire(row) };
}

// A valid scrypt hash of a random password, computed once: verified against for unknown names.
const DUMMY_HASH = "scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$0Jdm9Hx2m1d3kOqYy7ZbqkQ6Z6c3H2y1J8Qb7l5cQ1M";

/** The operator behind a session token, if the session is live (not ended, not idle too long). */
export async function authenticateSession(token: string, idleMs: number): Promise<Principal | null> {
  const db = await getDb();
  const id = hashSecret(token);
  const now = accessClock.now();
  const [row] = await db
    .select({ session: sessions, operator: operators })
    .from(sessions)
    .innerJoin(operators, eq(operators.id, sessions.operatorId))
    .where(eq(sessions.id, id));
  if (!row || row.session.endedAt || row.operator.disabledAt) return null;
  if (now.getTime() - row.session.lastSeenAt.getTime() > idleMs) return null;
  if (now.getTime() - row.session.lastSeenAt.getTime() >= Math.min(TOUCH_EVERY_MS, idleMs / 10)) {
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
