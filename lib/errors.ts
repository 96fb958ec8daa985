// The one error contract of the API (shared/API.md): every failure is
// {"error": {"code", "message", "issues"?}} with the status its code implies.
import type { z } from "zod";

export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_query: 422,
  unauthorized: 401,
  not_found: 404,
  unknown_hash: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  ambiguous_hash: 409,
  evicted: 410,
  expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  missing_verification_receipt: 422,
  database_unavailable: 503,
  server_busy: 503,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorIssue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { issues?: ErrorIssue[]; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody() {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details.issues ? { issues: this.details.issues } : {}),
        ...this.details.extra,
      },
    };
  }

  toResponse(): Response {
    return Response.json(this.toBody(), { status: this.status, headers: this.details.headers });
  }
}

/** zod issues as the contract's `issues`, with paths like `receipts.3.pass_number`. */
export function zodIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): ErrorIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join("."),
    message: issue.message,
  }));
}

// SQLSTATE classes and client errors that mean the database, not the input, is at fault.
const UNAVAILABLE_CODES = new Set([
  "DATABASE_UNAVAILABLE",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
  }
  return false;
}

/** Any thrown value as a contract response; unexpected errors are logged, never echoed. */
export function toErrorResponse(error: unknown): Response {
  if (error instanceof ApiError) return error.toResponse();
  if (isDatabaseUnavailable(error)) {
    console.error("[floorline] database unavailable:", error);
    return new ApiError("database_unavailable", "The database is unavailable; try again shortly.", {
      headers: { "Retry-After": "5" },
    }).toResponse();
  }
  console.error("[floorline] internal error:", error);
  return new ApiError("internal_error", "The server failed to handle this request.").toResponse();
}
