import { z } from "zod";
import { KEY_SCOPES, MIN_PASSWORD_LENGTH, ROLES } from "../auth/credentials.mjs";
import { text } from "./common";

const name = text({ min: 1, max: 100 })
  .transform((v) => v.trim())
  .refine((v) => v.length > 0, "must not be blank");

export const createKeySchema = z.object({
  name,
  scopes: z
    .array(z.enum(KEY_SCOPES))
    .min(1, "must name at least one scope")
    .transform((scopes) => [...new Set(scopes)]),
});
export type CreateKey = z.infer<typeof createKeySchema>;

export const createOperatorSchema = z.object({
  name,
  role: z.enum(ROLES),
  password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
});

export const signInSchema = z.object({
  name: z.string().max(100),
  password: z.string().max(1024),
});

export const keyIdSchema = z.string().regex(/^[0-9a-f]{16}$/, "is not a key id");
export const operatorIdSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1);
