import { z } from "zod";

// Postgres text cannot hold NUL and UTF-8 cannot hold a lone surrogate: refuse both at the edge
// rather than fail inside the database.
const storable = (value: string) => !value.includes("\u0000") && value.isWellFormed();
const STORABLE_MESSAGE = "must not contain NUL characters or unpaired surrogates";

/** A string the database can store, measured in code points (as Python's len()). */
export function text(options: { min?: number; max: number }) {
  const min = options.min ?? 0;
  return z
    .string()
    .refine(storable, STORABLE_MESSAGE)
    .refine((v) => [...v].length >= min, min === 1 ? "must not be empty" : `must be at least ${min} characters`)
    .refine((v) => [...v].length <= options.max, `must be at most ${options.max} characters`);
}

/** Integers on the wire: JSON numbers within ±(2^53 - 1); fractions and numeric strings are invalid. */
export const nonNegativeInt = z.int().min(0);

export const unitInterval = z.number().min(0).max(1);

export const sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");

export const timestampSchema = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });

function storableJson(value: unknown): boolean {
  if (typeof value === "string") return storable(value);
  if (Array.isArray(value)) return value.every(storableJson);
  if (value && typeof value === "object") {
    return Object.entries(value).every(([k, v]) => storable(k) && storableJson(v));
  }
  return true;
}

/** A free-form JSON object of bounded size, storable as jsonb. */
export function jsonObject(maxBytes: number) {
  return z
    .record(z.string(), z.unknown())
    .refine(storableJson, `must not contain NUL characters or unpaired surrogates`)
    .refine(
      (v) => Buffer.byteLength(JSON.stringify(v), "utf8") <= maxBytes,
      `must be at most ${maxBytes / 1024} KiB as JSON`,
    );
}

/** Content classes appear in URLs (`/policies/{content_class}`): keep them to a safe alphabet. */
export const contentClassSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, "must be 1-64 characters of letters, digits, '.', '_', ':' or '-', starting with a letter or digit");

export const chainIdSchema = text({ min: 1, max: 256 });
