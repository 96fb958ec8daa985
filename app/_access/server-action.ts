// Every server action is made with `serverAction(<scope>, fn)`: Next.js runs an action before
// (and without) rendering the page that offered it, so the page's `requirePage` does not
// protect it. Anyone who learnt an action's id can post to it; this wrapper checks the Host,
// the session and the scope exactly as a page would, answering 401/403 instead of running.
// `test/unit/route-registry.test.ts` fails on a "use server" file exporting anything else.
import "server-only";
import { headers } from "next/headers";
import { forbidden, unauthorized } from "next/navigation";
import { authenticateSession } from "@/db/queries/access";
import { admits, type Principal, sessionIdleMs, sessionTokenOf } from "@/lib/auth/access";
import type { Scope } from "@/lib/http/registry";
import { ANONYMOUS, authIsOn, checkPageHost } from "./gate";
import { envRecord } from "@/lib/env";

async function authorizeAction(scope: Scope): Promise<Principal> {
  const incoming = await headers();
  checkPageHost(incoming);
  const token = sessionTokenOf(incoming.get("cookie"));
  const operator = token ? await authenticateSession(token, sessionIdleMs(envRecord())) : null;
  if (scope === "public" || !(await authIsOn())) return operator ?? ANONYMOUS;
  if (!operator) unauthorized();
  if (!admits(operator, scope)) forbidden();
  return operator;
}

/** A server action that runs only for a caller the scope admits; the action gets who it is. */
export function serverAction<A extends unknown[], R>(
  scope: Scope,
  action: (principal: Principal, ...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => action(await authorizeAction(scope), ...args);
}
