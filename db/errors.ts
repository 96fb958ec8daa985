// What the database layer throws when the database, not the request, is at fault. Each has
// a `code` that lib/errors.ts reads to answer 503 (with Retry-After), never 500.

/** No connection came free within the acquire timeout: the database is overloaded, answer 503. */
export class DatabaseBusyError extends Error {
  readonly code = "DB_ACQUIRE_TIMEOUT";
  constructor(waitedMs: number) {
    super(`No database connection came free within ${waitedMs} ms`);
    this.name = "DatabaseBusyError";
  }
}

/** A query outlived every server-side bound: its connection is presumed stuck, answer 503. */
export class DatabaseStuckError extends Error {
  readonly code = "DB_QUERY_DEADLINE";
  constructor(waitedMs: number) {
    super(`A database call got no answer within ${waitedMs} ms`);
    this.name = "DatabaseStuckError";
  }
}

/** Opening or migrating the database failed: the API answers 503 and the next request retries. */
export class DatabaseUnavailableError extends Error {
  readonly code = "DATABASE_UNAVAILABLE";
  // Next.js passes a server error's own digest to the error page (and nothing else of it in
  // production), so the page can say the database is the cause.
  readonly digest = "DATABASE_UNAVAILABLE";
  constructor(cause: unknown, message = "The database could not be opened") {
    super(message, { cause });
    this.name = "DatabaseUnavailableError";
  }
}
