// The page check, asked by scripts/start.ts before a page starts to stream (the contract is
// lib/auth/page-gate.ts). It makes the same decisions as `requirePage`, which stays the
// check of record inside the page: this one only lets the answer carry its real status.
import "server-only";
import { checkDatabase } from "@/db/queries/health";
import { hasScope } from "@/lib/auth/access";
import { PAGE_GATE, type PageAnswer, type PageGate, type PageRequest } from "@/lib/auth/page-gate";
import { databaseTrouble } from "@/lib/errors";
import { PAGES } from "@/lib/http/registry";
import { processSingleton } from "@/lib/process-singleton";
import { authIsOn, checkHost, sessionOperator } from "./gate";
import { requestFacts } from "./request-facts";

const UNAVAILABLE: PageAnswer = { status: 503, retryAfterSeconds: 5 };

export async function decidePage({ pattern, target, headers }: PageRequest): Promise<PageAnswer | null> {
  const scope = (PAGES as Record<string, (typeof PAGES)[keyof typeof PAGES] | undefined>)[pattern];
  if (!scope) return null;
  try {
    checkHost(headers, "http://localhost/");
  } catch {
    return { status: 403 };
  }
  // Every page reads the database: one that is down would otherwise render its error page
  // inside a 200.
  if (!(await checkDatabase())) return UNAVAILABLE;
  const facts = requestFacts(headers, "http://localhost/");
  try {
    const operator = await sessionOperator(headers, facts);
    if (scope === "public" || !(await authIsOn(facts))) return null;
    if (!operator) return { status: 307, location: `/sign-in?next=${encodeURIComponent(target)}` };
    if (scope === "admin" && !hasScope(operator, "admin")) return { status: 403 };
    return null;
  } catch (error) {
    const trouble = databaseTrouble(error);
    if (trouble) return { status: 503, retryAfterSeconds: trouble === "busy" ? 2 : 5 };
    throw error;
  }
}

/** Makes the gate findable by the HTTP server (called once at start-up). */
export function registerPageGate(): void {
  processSingleton<PageGate>(PAGE_GATE, () => decidePage);
}
