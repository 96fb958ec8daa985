// The OpenAPI operations of health, metrics and this reference.
import { healthSchema } from "../../schemas/health";
import type { Operations } from "./spec";

export const SERVICE_OPERATIONS = {
  "/api/v1/health": {
    GET: {
      summary: "Is the server and its database up",
      tag: "Health",
      responses: { 200: { description: "Up.", schema: healthSchema } },
    },
  },
  "/metrics": {
    GET: {
      summary: "Prometheus metrics of this instance",
      tag: "Metrics",
      responses: {
        200: {
          description: "The text exposition format, version 0.0.4.",
          media: { "text/plain": { schema: { type: "string" } } },
        },
      },
    },
  },
  "/api/v1/openapi.json": {
    GET: {
      summary: "This document",
      tag: "Docs",
      responses: {
        200: {
          description: "The OpenAPI 3.1 document.",
          media: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  },
  "/docs/api": {
    GET: {
      summary: "The API reference page",
      tag: "Docs",
      responses: { 200: { description: "An HTML page.", media: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/docs/api/scalar.js": {
    GET: {
      summary: "The API reference page's script",
      tag: "Docs",
      responses: {
        200: {
          description: "JavaScript, cached for a year.",
          media: { "text/javascript": { schema: { type: "string" } } },
        },
      },
    },
  },
} satisfies Operations;
