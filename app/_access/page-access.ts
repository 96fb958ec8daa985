// Every page calls `requirePage(<its pattern>)` first (the route-registry test makes sure):
// the Host allow-list, then the one access decision (lib/auth/decision.ts) with the session
// as the credential: when the request needs one, a live session (else a redirect to
// /sign-in) and the role the page needs (else 403). A path segment naming
// nothing that can be stored (a NUL, an unpaired surrogate) is a 404 before any query sees
// it, as on the API. Served by scripts/start.ts, the same answers are given before the page
// starts to stream (`page-gate.ts`), so they go out with their real status codes; this is
// the check of record all the same.
import "server-only";
import { headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { fillPattern } from "@/lib/auth/access";
import type { Principal } from "@/lib/auth/decision";
import { pageRefusal } from "@/lib/auth/page-gate";
import { PAGES, type PagePattern } from "@/lib/http/registry";
import { authIsOn, checkPageHost, decideBySession } from "./gate";
import { paramsStorable } from "./page-subjects";
import { requestFacts } from "./request-facts";

export async function requirePage(pattern: PagePattern, params?: Record<string, string>): Promise<Principal> {
  const incoming = await headers();
  checkPageHost(incoming);
  if (params && !paramsStorable(params)) notFound();
  const decision = await decideBySession(incoming, requestFacts(incoming, "http://localhost/"), PAGES[pattern]);
  if ("admit" in decision) return decision.admit;
  const answer = pageRefusal(decision, fillPattern(pattern, params));
  if (answer.status === 307) redirect(answer.location);
  forbidden();
}

/** Whether this page request needs a credential (the sign-in page says when it does not). */
export async function pageNeedsCredential(): Promise<boolean> {
  const incoming = await headers();
  return authIsOn(requestFacts(incoming, "http://localhost/"));
}
