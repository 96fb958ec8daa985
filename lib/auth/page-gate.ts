// The page gate's contract between the app and the HTTP server in scripts/start.ts. A page
// streams: once Next.js has sent the shell, a redirect or a refusal can only travel inside a
// 200. So the server asks the app first, before handing a page request to Next.js, and
// answers a missing session, a forbidden page, a path naming nothing stored or a database
// that is down with their real status codes. The app registers the function
// (app/_access/page-gate.ts) as a process singleton; the server finds it by name, as it
// cannot import the app's bundle.
import { existingSingleton } from "../process-singleton";
import type { Refusal } from "./decision";

export const PAGE_GATE = "page-gate";

export interface PageRequest {
  /** The page's pattern in lib/http/registry.ts form: `/chains/{chain_id}`. */
  pattern: string;
  /** The path as Next.js routes it (dot segments resolved), still percent-encoded. */
  path: string;
  /** The path and query as requested, for the sign-in redirect's `next`. */
  target: string;
  headers: Headers;
}

/**
 * 404: the path names nothing stored. The server still lets Next.js render the page, whose
 * own lookup shows its not-found page, and only makes the status 404 rather than the 200 a
 * streamed page starts with.
 */
export type PageAnswer =
  | { status: 307; location: string }
  | { status: 403 }
  | { status: 404 }
  | { status: 503; retryAfterSeconds: number };

/**
 * A page's words for a refusal of the one decision (lib/auth/decision.ts): sign in first, and
 * come back to `target`; or 403 for a page the operator's role does not cover. Said as this
 * answer by the page gate, and with Next.js's redirect() / forbidden() by the page itself.
 */
export function pageRefusal(refusal: Refusal, target: string): { status: 307; location: string } | { status: 403 } {
  if (refusal.refuse === "insufficient_scope") return { status: 403 };
  return { status: 307, location: `/sign-in?next=${encodeURIComponent(target)}` };
}

export type PageGate = (request: PageRequest) => Promise<PageAnswer | null>;

/** The registered gate, or undefined before the app has started. */
export function pageGate(): PageGate | undefined {
  return existingSingleton<PageGate>(PAGE_GATE);
}

/**
 * The values of a pattern's `{name}` segments in a path, decoded once as Next.js decodes a
 * page's params; null when the path does not fit the pattern or a segment is not decodable.
 */
export function pageParams(pattern: string, path: string): Record<string, string> | null {
  const names = pattern.split("/");
  const segments = path.replace(/(.)\/$/, "$1").split("/");
  if (names.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    const param = /^\{(\w+)\}$/.exec(name)?.[1];
    if (!param) continue;
    try {
      params[param] = decodeURIComponent(segments[i] ?? "");
    } catch {
      return null;
    }
  }
  return params;
}
