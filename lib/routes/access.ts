// The routes of API keys, operators and sessions.
import { defineRoute } from "../http/contract";
import {
  apiKeySchema,
  createdApiKeySchema,
  createKeySchema,
  createOperatorSchema,
  keyListQuerySchema,
  operatorSchema,
  sessionSchema,
  signedInSchema,
  signInSchema,
} from "../schemas/access";
import { listOf } from "../schemas/common";

export const ACCESS_ROUTES = {
  keys: defineRoute("/api/v1/keys", {
    GET: {
      scope: "admin",
      summary: "List API keys (never their secrets)",
      tag: "Access",
      query: keyListQuerySchema,
      responses: {
        200: {
          description: "The keys, revoked ones included, newest first, in keyset pages.",
          schema: listOf(apiKeySchema),
        },
      },
    },
    POST: {
      scope: "admin",
      summary: "Create an API key with scopes",
      tag: "Access",
      body: createKeySchema,
      responses: {
        201: { description: "The key, with its secret this once.", schema: createdApiKeySchema },
      },
    },
  }),
  key: defineRoute("/api/v1/keys/{id}", {
    DELETE: {
      scope: "admin",
      summary: "Revoke an API key (at once, on every instance)",
      tag: "Access",
      responses: { 200: { description: "The revoked key.", schema: apiKeySchema } },
      errors: [404],
    },
  }),
  operators: defineRoute("/api/v1/operators", {
    GET: {
      scope: "admin",
      summary: "List operators",
      tag: "Access",
      responses: { 200: { description: "Every operator, on one page.", schema: listOf(operatorSchema) } },
    },
    POST: {
      scope: "admin",
      summary: "Create an operator (a dashboard sign-in)",
      tag: "Access",
      body: createOperatorSchema,
      responses: { 201: { description: "The operator.", schema: operatorSchema } },
      errors: [409],
    },
  }),
  operator: defineRoute("/api/v1/operators/{id}", {
    DELETE: {
      scope: "admin",
      summary: "Disable an operator and end their sessions",
      tag: "Access",
      responses: { 200: { description: "The disabled operator.", schema: operatorSchema } },
      errors: [404],
    },
  }),
  // Signing in and out needs no credential (it is how one gets one); GET answers who is signed in.
  session: defineRoute("/api/v1/session", {
    GET: {
      scope: "public",
      summary: "Whether auth is on, and who is signed in",
      tag: "Access",
      responses: { 200: { description: "The session.", schema: sessionSchema } },
    },
    POST: {
      scope: "public",
      summary: "Sign in as an operator",
      description: "Sets the session cookie. Repeated failures from one address are throttled (429).",
      tag: "Access",
      body: signInSchema,
      responses: {
        201: {
          description: "Signed in.",
          schema: signedInSchema,
          headers: { "Set-Cookie": "the session cookie (HttpOnly, SameSite=Lax)" },
        },
      },
      errors: [401, 429],
    },
    DELETE: {
      scope: "public",
      summary: "Sign out",
      tag: "Access",
      responses: {
        204: { description: "Signed out; the cookie is cleared.", headers: { "Set-Cookie": "the cleared cookie" } },
      },
    },
  }),
};
