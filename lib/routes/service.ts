// The routes of health, metrics and this reference.
import { defineRoute } from "../http/contract";
import { healthSchema } from "../schemas/health";

export const SERVICE_ROUTES = {
  health: defineRoute("/api/v1/health", {
    GET: {
      scope: "public",
      summary: "Is the server and its database up",
      tag: "Health",
      responses: { 200: { description: "Up.", schema: healthSchema } },
    },
  }),
  metrics: defineRoute("/metrics", {
    GET: {
      scope: "read",
      summary: "Prometheus metrics of this instance",
      tag: "Metrics",
      responses: {
        200: {
          description: "The text exposition format, version 0.0.4.",
          media: { "text/plain": { schema: { type: "string" } } },
        },
      },
    },
  }),
  // The document describes the API and holds no data; the reference page that reads it shows
  // nothing else, and its script is a static asset.
  openapi: defineRoute("/api/v1/openapi.json", {
    GET: {
      scope: "public",
      summary: "This document",
      tag: "Docs",
      responses: {
        200: {
          description: "The OpenAPI 3.1 document.",
          media: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  }),
  reference: defineRoute("/docs/api", {
    GET: {
      scope: "read",
      summary: "The API reference page",
      tag: "Docs",
      responses: { 200: { description: "An HTML page.", media: { "text/html": { schema: { type: "string" } } } } },
    },
  }),
  referenceScript: defineRoute("/docs/api/scalar.js", {
    GET: {
      scope: "public",
      summary: "The API reference page's script",
      tag: "Docs",
      responses: {
        200: {
          description: "JavaScript, cached for a year.",
          media: { "text/javascript": { schema: { type: "string" } } },
        },
      },
    },
  }),
};
