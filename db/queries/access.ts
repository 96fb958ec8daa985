// API keys and operators: created, listed, revoked or disabled, and a key authenticated; and
// whether any credential exists, which decides whether access is on. Signing in, sessions and
// attempt counts: sessions.ts.
import "server-only";
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/access";
import {
  generateApiKey,
  hashPassword,
  type KeyScope,
  parseApiKey,
  type Role,
  secretMatches,
} from "@/lib/auth/credentials";
import type { ApiKeyWire, CreatedApiKeyWire, OperatorWire } from "@/lib/schemas/access";
import { getDb } from "../index";
import { type CreatedKey, newestFirstPage } from "../keyset";
import { col, onlyRow, queryRows } from "../sql";
import { apiKeys, operators, sessions } from "../schema";
import { processSingleton } from "@/lib/process-singleton";

/** The time the access queries judge expiry by; tests move it. */
export const accessClock = { now: () => new Date() };

// `last_used_at` and a session's `last_seen_at` are written at most this often, so a busy
// key costs one indexed read per request, not a write.
export const TOUCH_EVERY_MS = 60_000;

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

export function toOperatorWire(row: typeof operators.$inferSelect): OperatorWire {
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
