import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, serial, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { KeyScope, Role } from "@/lib/auth/credentials";
import { createdAt, timestampMs } from "./columns";

/** API keys: the public id and a hash of the secret, never the secret itself. */
export const apiKeys = pgTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  scopes: jsonb("scopes").$type<KeyScope[]>().notNull(),
  secretHash: text("secret_hash").notNull(),
  createdBy: text("created_by"),
  createdAt: createdAt(),
  lastUsedAt: timestampMs("last_used_at"),
  revokedAt: timestampMs("revoked_at"),
});

/** Dashboard operators; the password as an scrypt hash with its own salt. */
export const operators = pgTable(
  "operators",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    role: text("role").$type<Role>().notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: createdAt(),
    disabledAt: timestampMs("disabled_at"),
    /** The last successful sign-in: a name that signed in lately is hashed first under a spray. */
    lastSignInAt: timestampMs("last_sign_in_at"),
  },
  (t) => [uniqueIndex("operators_name_key").on(sql`lower(${t.name})`)],
);

/** Server-side sessions, keyed by a hash of the cookie's token. */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    operatorId: integer("operator_id")
      .notNull()
      .references(() => operators.id),
    createdAt: createdAt(),
    lastSeenAt: timestampMs("last_seen_at").notNull().defaultNow(),
    endedAt: timestampMs("ended_at"),
  },
  (t) => [index("sessions_operator_idx").on(t.operatorId)],
);

/**
 * Throttling counters shared by every instance: one row per bucket (a name and address pair
 * signing in, an address's failed sign-ins, an address's failed API keys), counting the
 * attempts in a fixed window that starts at the bucket's first attempt. One upsert both
 * counts an attempt and returns the count, so parallel attempts cannot all pass a check.
 */
export const authAttempts = pgTable(
  "auth_attempts",
  {
    bucket: text("bucket").primaryKey(),
    attempts: integer("attempts").notNull(),
    windowStart: timestampMs("window_start").notNull(),
  },
  (t) => [index("auth_attempts_window_idx").on(t.windowStart)],
);
