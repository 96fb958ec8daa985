// The shape of an operation in the OpenAPI document, and the helpers the per-concept tables share.
import { z } from "zod";
import type { METHODS, ROUTES } from "../../http/registry";

export interface ResponseSpec {
  description: string;
  /** JSON body; omit for a body that is not JSON. */
  schema?: z.ZodType;
  /** Other media types this answer may take (text/csv, text/plain, text/event-stream). */
  media?: Record<string, { schema?: Record<string, unknown>; description?: string }>;
  headers?: Record<string, string>;
}

export interface OperationSpec {
  summary: string;
  description?: string;
  tag: string;
  /** A zod object whose keys are the query parameters. */
  query?: z.ZodObject;
  /** Path parameters that are checked beyond "a string" (e.g. a content class). */
  pathParams?: Record<string, z.ZodType>;
  body?: z.ZodType;
  /** Request media types other than JSON (OTLP protobuf). */
  bodyMedia?: Record<string, Record<string, unknown>>;
  responses: Record<number, ResponseSpec>;
  /** Error statuses particular to this operation; the usual ones are added from its shape. */
  errors?: number[];
  /**
   * "detail": a Headroom-compatible endpoint, whose client errors are FastAPI's `{"detail": ...}`
   * (a refused credential or Host, and 503, stay the API's error contract).
   */
  errorBody?: "detail";
}

export type OperationTable = {
  [P in keyof typeof ROUTES]: { [M in keyof (typeof ROUTES)[P] & (typeof METHODS)[number]]: OperationSpec };
};

/** One item, or `{ [key]: [...] }` with up to `max` of them: how the ingest endpoints take batches. */
export function oneOrBatch(item: z.ZodType, key: string, max: number) {
  return z.union([item, z.object({ [key]: z.array(item).min(1).max(max) })]);
}

export const results = (item: z.ZodType) => z.union([item, z.object({ results: z.array(item) })]);

export const plainText = { "text/plain": { schema: { type: "string" } } };

/** Part of the table: each concept's file has entries for its own routes. */
export type Operations = Partial<{ [P in keyof OperationTable]: OperationTable[P] }>;
