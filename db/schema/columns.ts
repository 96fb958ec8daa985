import { bigint, timestamp } from "drizzle-orm/pg-core";

/** Counts and byte sizes on the wire go up to 2^53 - 1: bigint, read back as JS numbers. */
export const safeBigint = (name: string) => bigint(name, { mode: "number" });

/** Millisecond precision, as JavaScript dates: keyset cursors built from them compare exactly. */
export const timestampMs = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });

export const createdAt = () => timestampMs("created_at").notNull().defaultNow();
