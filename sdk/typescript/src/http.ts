// One HTTP call to the server, with the contract's error body turned into an error that
// says whether trying again can help.
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

export interface Issue {
  path: string;
  message: string;
}

export class FloorlineError extends Error {
  constructor(
    /** The HTTP status; 0 when no answer came (network error, closed client). */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: Issue[] = [],
    /** From `Retry-After`, in milliseconds, when the server sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "FloorlineError";
  }

  /** No answer came: "cannot reach <where> (<why>)", with the reason under fetch's "fetch failed". */
  static network(cause: unknown, where = "the server"): FloorlineError {
    const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
    const why = inner instanceof Error ? inner.message : String(inner);
    return new FloorlineError(0, "network_error", `cannot reach ${where} (${why})`);
  }

  /**
   * No answer, 429, and the answers of a server busy or away (503) or of a proxy without it for
   * a moment (502, 504): the same request may succeed later. Any other answer, a 500 included,
   * would come again.
   */
  get retryable(): boolean {
    return this.code === "network_error" || RETRYABLE_STATUSES.has(this.status);
  }
}

/** Seconds or an HTTP date, as RFC 9110 allows. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export interface Transport {
  /** `signal` aborts the request when the client closes before it is answered. */
  request(method: string, path: string, body?: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
}

export function httpTransport(base: string, apiKey: string | undefined, timeoutMs: number): Transport {
  const root = base.replace(/\/+$/, "");
  return {
    async request(method, path, body, options) {
      const headers: Record<string, string> = { accept: "application/json" };
      if (body !== undefined) headers["content-type"] = "application/json";
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      let response: Response;
      try {
        response = await fetch(`${root}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: options?.signal
            ? AbortSignal.any([AbortSignal.timeout(timeoutMs), options.signal])
            : AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw FloorlineError.network(error, root);
      }
      const text = await response.text().catch(() => "");
      let parsed: unknown = null;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {
        parsed = null;
      }
      if (response.ok) return parsed;
      const error = (parsed as { error?: { code?: unknown; message?: unknown; issues?: unknown } } | null)?.error;
      throw new FloorlineError(
        response.status,
        typeof error?.code === "string" ? error.code : `http_${response.status}`,
        typeof error?.message === "string" ? error.message : `the server answered ${response.status}`,
        Array.isArray(error?.issues) ? (error.issues as Issue[]) : [],
        parseRetryAfter(response.headers.get("retry-after")),
      );
    },
  };
}
