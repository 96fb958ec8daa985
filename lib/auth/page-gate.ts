// The page gate's contract between the app and the HTTP server in scripts/start.ts. A page
// streams: once Next.js has sent the shell, a redirect or a refusal can only travel inside a
// 200. So the server asks the app first, before handing a page request to Next.js, and
// answers a missing session, a forbidden page or a database that is down with their real
// status codes. The app registers the function (app/_access/page-gate.ts) as a process
// singleton; the server finds it by name, as it cannot import the app's bundle.
import { existingSingleton } from "../process-singleton";

export const PAGE_GATE = "page-gate";

export interface PageRequest {
  /** The page's pattern in lib/http/registry.ts form: `/chains/{chain_id}`. */
  pattern: string;
  /** The path and query as requested, for the sign-in redirect's `next`. */
  target: string;
  headers: Headers;
}

export type PageAnswer =
  | { status: 307; location: string }
  | { status: 403 }
  | { status: 503; retryAfterSeconds: number };

export type PageGate = (request: PageRequest) => Promise<PageAnswer | null>;

/** The registered gate, or undefined before the app has started. */
export function pageGate(): PageGate | undefined {
  return existingSingleton<PageGate>(PAGE_GATE);
}
