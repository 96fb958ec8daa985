// Every server action is made with `serverAction(<scope>, fn)`: Next.js runs an action before
// (and without) rendering the page that offered it, so the page's `requirePage` does not
// protect it. Anyone who learnt an action's id can post to it; this wrapper checks the Host,
// then asks the one access decision with the session as a page does, answering 401/403
// instead of running.
// `test/unit/route-registry.test.ts` fails on a "use server" file exporting anything else.
import "server-only";
import { headers } from "next/headers";
import { forbidden, unauthorized } from "next/navigation";
import type { Principal } from "@/lib/auth/decision";
import type { Scope } from "@/lib/http/registry";
import { checkPageHost, decideBySession } from "./gate";
import { requestFacts } from "./request-facts";

async function authorizeAction(scope: Scope): Promise<Principal> {
  const incoming = await headers();
  checkPageHost(incoming);
  const decision = await decideBySession(incoming, requestFacts(incoming, "http://localhost/"), scope);
  if ("admit" in decision) return decision.admit;
  if (decision.refuse === "insufficient_scope") forbidden();
  unauthorized();
}

/** A server action that runs only for a caller the scope admits; the action gets who it is. */
export function serverAction<A extends unknown[], R>(
  scope: Scope,
  action: (principal: Principal, ...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => action(await authorizeAction(scope), ...args);
}
