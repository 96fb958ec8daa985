// The one error contract of the API, which clients rely on: every failure is
// {"error": {"code", "message", "issues"?}} with the status its code implies.
import type { z } from "zod";
import { errorFields } from "./observability/error-fields";
import { existingSingleton, LOGGER, processSingleton } from "./process-singleton";

const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  invalid_body: 400,
  invalid_query: 422,
  unauthenticated: 401,
  insufficient_scope: 403,
  host_not_allowed: 403,
  cross_site_request: 403,
  not_found: 404,
  unknown_hash: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  idempotency_conflict: 409,
  name_taken: 409,
  ambiguous_hash: 409,
  evicted: 410,
  expired: 410,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  validation_failed: 422,
  too_many_requests: 429,
  missing_verification_receipt: 422,
  not_enough_data: 422,
  measurement_failed: 422,
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

// What the database answered, read off an error or any of its causes (Drizzle wraps the
// driver's error, the db layer wraps open failures).
function codesOf(error: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string") codes.push(code);
    if (typeof message === "string") messages.push(message);
  }
  return { codes, messages };
}

// Client-side failures to reach the server, and server states that mean "not now".
const UNREACHABLE_CODES = new Set([
  "DATABASE_UNAVAILABLE",
  "DATA_FOLDER_LOCKED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "3D000", // invalid_catalog_name: the database named does not exist
  "28P01", // invalid_password
  "28000", // invalid_authorization_specification: no such role, or pg_hba refuses it
]);

// Transient: the same request is likely to succeed in a moment.
const BUSY_CODES = new Set([
  "DB_ACQUIRE_TIMEOUT", // no pooled connection came free in time
  "DB_QUERY_DEADLINE", // a call outlived every server-side bound; its connection is replaced
  "57014", // query_canceled: statement_timeout
  "55P03", // lock_not_available: lock_timeout
  "40001", // serialization_failure
  "40P01", // deadlock_detected
]);

type DatabaseTrouble = "unavailable" | "busy";

/** Whether an error means the database, not the request, is at fault, and how. */
export function databaseTrouble(error: unknown): DatabaseTrouble | undefined {
  const { codes, messages } = codesOf(error);
  for (const code of codes) {
    if (BUSY_CODES.has(code)) return "busy";
    // Class 53, insufficient resources: out of shared memory (the lock table is full, raise
    // max_locks_per_transaction), disk full, too many connections.
    if (code.startsWith("53")) return "busy";
    if (UNREACHABLE_CODES.has(code) || code.startsWith("08")) return "unavailable";
  }
  if (messages.some((m) => m.includes("max_locks_per_transaction"))) return "busy";
  return undefined;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseTrouble(error) !== undefined;
}

// The server's logger (lib/observability/log.ts) when it is loaded; this module cannot
// import it, since client code imports the error contract and pino is server-only.
function log(level: "warn" | "error", error: unknown, msg: string, withError = true): void {
  const logger = existingSingleton<Record<typeof level, (fields: object, msg: string) => void>>(LOGGER);
  const fields = withError ? { err: errorFields(error) } : {};
  if (logger) logger[level](fields, msg);
  else console.error(JSON.stringify({ level, msg, ...fields }));
}

/**
 * Why the database cannot be reached, and what to do, in one line an operator can act on:
 * the first of the error's codes that says (a database that does not exist, credentials
 * refused, nothing listening, a host that does not resolve, a server starting or stopping).
 */
export function databaseTroubleCause(error: unknown): string {
  const { codes } = codesOf(error);
  for (const code of codes) {
    switch (code) {
      case "3D000":
        return "the database named in DATABASE_URL does not exist: create it (createdb <name>) or correct the URL";
      case "28P01":
      case "28000":
        return "PostgreSQL refused the user or password in DATABASE_URL: correct them, or the server's pg_hba.conf";
      case "ECONNREFUSED":
        return "nothing accepts connections at DATABASE_URL's host and port: start PostgreSQL, or correct the URL";
      case "ENOTFOUND":
        return "DATABASE_URL's host name does not resolve: correct it";
      case "57P03":
      case "57P01":
      case "57P02":
        return "PostgreSQL is starting or shutting down: wait for it";
      case "DATA_FOLDER_LOCKED":
        return "another process holds the embedded database's folder: stop it, or give this server another --data-dir";
      case "ETIMEDOUT":
      case "CONNECT_TIMEOUT":
        return "PostgreSQL does not answer in time: check that it runs and that the network lets this server through";
    }
  }
  return "the connection failed or was lost: check that PostgreSQL runs and that DATABASE_URL is right";
}

/** A database-trouble line is logged at most this often per cause; the others are counted. */
const TROUBLE_LOG_INTERVAL_MS = 60_000;
/** When each cause was last logged, one per process: Next.js bundles this module into several chunks. */
const troubleLogged = () =>
  processSingleton("databaseTroubleLogged", () => new Map<string, { at: number; since: number }>());

/**
 * Logs "database unavailable: <cause>" at most once a minute per cause (with how many more
 * requests met it since), the error's fields on the first line only: a database that stays
 * down answered every request with a stack trace, tens of kilobytes a minute.
 */
function logTrouble(error: unknown, answered: string): void {
  const cause = databaseTroubleCause(error);
  const now = Date.now();
  const logged = troubleLogged();
  const seen = logged.get(cause);
  if (seen && now - seen.at < TROUBLE_LOG_INTERVAL_MS) {
    seen.since++;
    return;
  }
  const more = seen && seen.since > 0 ? ` (${seen.since} more since the last line)` : "";
  logged.set(cause, { at: now, since: 0 });
  log("error", error, `database unavailable: ${cause}; ${answered}${more}`, !seen);
}

/**
 * For background work that met the database down: the once-a-minute line (logTrouble), true;
 * false for any other error, which the caller logs as its own.
 */
export function reportDatabaseTrouble(error: unknown, what: string): boolean {
  if (databaseTrouble(error) !== "unavailable") return false;
  logTrouble(error, `${what} waits for it`);
  return true;
}

/** Any thrown value as a contract response; unexpected errors are logged (without data), never echoed. */
export function toErrorResponse(error: unknown): Response {
  if (error instanceof ApiError) return error.toResponse();
  const trouble = databaseTrouble(error);
  if (trouble === "busy") {
    log("warn", error, "database busy: answered 503");
    return new ApiError("database_unavailable", "The database is busy; try again in a moment.", {
      headers: { "Retry-After": "2" },
    }).toResponse();
  }
  if (trouble === "unavailable") {
    logTrouble(error, "answered 503");
    return new ApiError("database_unavailable", "The database is unavailable; try again shortly.", {
      headers: { "Retry-After": "5" },
    }).toResponse();
  }
  log("error", error, "internal error: answered 500");
  return new ApiError("internal_error", "The server failed to handle this request.").toResponse();
}
