// Errors as log fields without the data they carried. Pure (no imports), so that the error
// contract, which client code imports too, can use it as well as the server's logger.

// Cut from logged errors: a failed statement's text can be as large as what it wrote.
const MAX_TEXT = 300;

export interface ErrorFields {
  type?: string;
  code?: string;
  message?: string;
  query?: string;
  routine?: string;
  constraint?: string;
  stack?: string;
  causes?: Omit<ErrorFields, "causes" | "stack">[];
}

// Secrets a message may quote: the password of a connection string, and this app's own keys
// and webhook secrets.
// Masked on the clipped text (with a margin, so a secret across the cut is still seen whole):
// the patterns would take quadratic time over a message of megabytes.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s/@:]{0,200}):[^\s/@]{0,200}@/gi;
const APP_SECRET = /\b(fl|whsec)_[A-Za-z0-9_-]{8,}/g;

function clip(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const clean = text
    .slice(0, MAX_TEXT * 2)
    .replace(URL_PASSWORD, "$1:***@")
    .replace(APP_SECRET, "$1_***");
  return text.length > MAX_TEXT ? `${clean.slice(0, MAX_TEXT)}… (${text.length} chars)` : clean;
}

/**
 * An error as loggable fields without the data it carried: Drizzle's "Failed query" messages
 * hold every parameter (a whole cached original), postgres.js errors carry `parameters`, and
 * PostgreSQL's `detail` quotes values. Kept: names, SQLSTATE codes, messages up to the first
 * "params:", the statement's text clipped, routine and constraint names, and stack frames;
 * passwords in URLs and the app's keys and webhook secrets are masked in the text kept.
 */
export function errorFields(error: unknown): ErrorFields {
  const chain: ErrorFields[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== "object") {
      chain.push({ message: clip(String(e)) });
      break;
    }
    const any = e as Record<string, unknown>;
    let message = typeof any.message === "string" ? any.message : undefined;
    let query: string | undefined;
    if (message?.startsWith("Failed query: ")) {
      const body = message.slice("Failed query: ".length);
      const cut = body.lastIndexOf("\nparams:");
      query = cut >= 0 ? body.slice(0, cut) : body;
      message = "Failed query";
    }
    chain.push(
      Object.fromEntries(
        Object.entries({
          type: typeof any.name === "string" ? any.name : undefined,
          code: typeof any.code === "string" ? any.code : undefined,
          message: clip(message),
          query: clip(query ?? (typeof any.query === "string" ? any.query : undefined)),
          routine: typeof any.routine === "string" ? any.routine : undefined,
          constraint: typeof any.constraint_name === "string" ? any.constraint_name : undefined,
          stack:
            depth === 0 && typeof any.stack === "string"
              ? any.stack
                  .split("\n")
                  .filter((line) => line.startsWith("    at "))
                  .slice(0, 12)
                  .join("\n")
              : undefined,
        }).filter(([, v]) => v !== undefined),
      ) as ErrorFields,
    );
  }
  const [top = {}, ...causes] = chain;
  return causes.length ? { ...top, causes } : top;
}
