// Every page calls `requirePage(<its pattern>)` first (the route-registry test makes sure):
// the Host allow-list, then, with auth on, a live session (else a redirect to /sign-in)
// and the role the page needs (else 403). A path segment naming nothing that can be stored
// (a NUL, an unpaired surrogate) is a 404 before any query sees it, as on the API.
import "server-only";
import { cookies, headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { authenticateSession } from "@/db/queries/access";
import { fillPattern, hasScope, type Principal, SESSION_COOKIE, sessionIdleMs } from "@/lib/auth/access";
import { PAGES, type PagePattern } from "@/lib/http/registry";
import { isStorableText } from "@/lib/schemas/common";
import { decodeSegment } from "@/lib/url-state";
import { ANONYMOUS, authIsOn, checkPageHost } from "./gate";
import { envRecord } from "@/lib/env";

export async function requirePage(pattern: PagePattern, params?: Record<string, string>): Promise<Principal> {
  const incoming = await headers();
  checkPageHost(incoming);
  if (params && !Object.values(params).every((segment) => isStorableText(decodeSegment(segment)))) notFound();
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const operator = token ? await authenticateSession(token, sessionIdleMs(envRecord())) : null;
  const scope = PAGES[pattern];
  if (scope === "public" || !(await authIsOn())) return operator ?? ANONYMOUS;
  if (!operator) redirect(`/sign-in?next=${encodeURIComponent(fillPattern(pattern, params))}`);
  if (scope === "admin" && !hasScope(operator, "admin")) forbidden();
  return operator;
}

/** The signed-in operator for a page that shows something about them, without requiring one. */
export async function currentOperator(): Promise<Principal> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  return (token ? await authenticateSession(token, sessionIdleMs(envRecord())) : null) ?? ANONYMOUS;
}
