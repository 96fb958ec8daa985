import { z } from "zod";
import { KEY_SCOPES, MIN_PASSWORD_LENGTH, ROLES } from "../auth/credentials";
import type { ErrorIssue } from "../errors";
import { limitSchema } from "../http/list";
import { text, utcTimestamp as timestamp } from "./common";

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

export const createOperatorSchema = z.object({
  name,
  role: z.enum(ROLES),
  password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
});

/** The sign-in page's form for the first admin: `token` is FLOORLINE_API_TOKEN, where the request needs it. */
export const firstAdminSchema = z.object({
  name,
  password: createOperatorSchema.shape.password,
  token: z.string().max(4096).optional(),
});

/** The first-admin action's answer: refusals the form shows in words (wrong token, bad input, one exists now). */
export type FirstAdminAnswer = { ok: true; name: string } | { ok: false; message: string; issues?: ErrorIssue[] };

export const signInSchema = z.object({
  name: z.string().max(100),
  password: z.string().max(1024),
});

/** `GET /api/v1/keys`: keyset pages, newest first. */
export const keyListQuerySchema = z.object({ cursor: z.string().optional(), limit: limitSchema });

export const keyIdSchema = z.string().regex(/^[0-9a-f]{16}$/, "is not a key id");
export const operatorIdSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1);

// ---------------------------------------------------------------------------------------
// Answers

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(KEY_SCOPES)),
    created_at: timestamp,
    created_by: z.string().nullable(),
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
  })
  .meta({ id: "ApiKey" });
export type ApiKeyWire = z.infer<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema
  .extend({
    key: z.string().describe("the full key, `fl_<id>_<secret>`: shown in this answer only"),
    notice: z
      .string()
      .nullable()
      .describe(
        "what creating this key changed, while no operator exists: access control is on and the dashboard needs an operator, and how to create the first one; null otherwise",
      ),
  })
  .meta({ id: "CreatedApiKey" });
export type CreatedApiKeyWire = z.infer<typeof createdApiKeySchema>;

export const operatorSchema = z
  .object({
    id: z.int().min(1),
    name: z.string(),
    role: z.enum(ROLES),
    created_at: timestamp,
    disabled_at: timestamp.nullable(),
  })
  .meta({ id: "Operator" });
export type OperatorWire = z.infer<typeof operatorSchema>;

const signedInOperator = z.object({ id: z.int().min(1), name: z.string(), role: z.enum(ROLES) });

export const sessionSchema = z
  .object({
    auth: z.boolean().describe("whether this server asks for credentials"),
    operator: signedInOperator.nullable().describe("the operator signed in with this request's cookie"),
  })
  .meta({ id: "Session" });

export const signedInSchema = z.object({ operator: signedInOperator }).meta({ id: "SignedIn" });
