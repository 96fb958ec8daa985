// Headroom's proxy answers in FastAPI's style (`{"detail": ...}`), and its clients read that;
// so do Floorline's root-path Headroom endpoints, for everything but a failed credential
// (answered before the handler, in the API's own error contract).
import type { z } from "zod";
import { ApiError } from "../../errors";
import type { HeadroomMissStatus } from "../../schemas/headroom";
import { missBody, type MissStatus } from "./shapes";

type Handler<C> = (request: Request, context: C) => Promise<Response>;

export function detail(status: number, message: string, headers?: Record<string, string>): Response {
  return Response.json({ detail: message }, { status, headers });
}

/** A native retrieval miss as Headroom's 404 (409 for a prefix naming several originals). */
export function missFrom(error: ApiError): { status: number; status_word: HeadroomMissStatus } | null {
  switch (error.code) {
    case "unknown_hash":
      return { status: 404, status_word: "missing" };
    case "evicted":
    case "expired":
      return { status: 404, status_word: error.code };
    case "ambiguous_hash":
      return { status: 409, status_word: "ambiguous" };
    default:
      return null;
  }
}

/**
 * A Headroom request part parsed with its schema, or the `detail` answer (400 unless told)
 * naming the first problem. Headroom reads a body that is not a JSON object as an empty one.
 */
export function parseHeadroom<T extends z.ZodType>(
  schema: T,
  value: unknown,
  options: { body?: boolean; status?: number } = {},
): z.output<T> | Response {
  const input = options.body && (typeof value !== "object" || value === null || Array.isArray(value)) ? {} : value;
  const parsed = schema.safeParse(input);
  return parsed.success
    ? parsed.data
    : detail(options.status ?? 400, parsed.error.issues[0]?.message ?? "Invalid request");
}

/** Client errors of a Headroom endpoint in Headroom's shape; server errors stay the API's (503, 500). */
export function headroom<C>(handler: Handler<C>): Handler<C> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      const miss = missFrom(error);
      if (miss) {
        const body = { ...missBody(miss.status_word as MissStatus, error.message), status: miss.status_word };
        return Response.json(body, { status: miss.status, headers: { "cache-control": "no-store" } });
      }
      return detail(error.status, error.message, error.details.headers);
    }
  };
}

/** The 405 of a Headroom endpoint, naming the methods it takes. */
export function headroomMethodNotAllowed(allowed: string): () => Promise<Response> {
  return async () => detail(405, "Method Not Allowed", { Allow: allowed });
}
