// The page check, asked by scripts/start.ts before a page starts to stream (the contract is
// lib/auth/page-gate.ts). It makes the same decisions as `requirePage`, which stays the
// check of record inside the page, then asks whether the path names anything stored
// (page-subjects.ts): this one only lets the answer carry its real status.
import "server-only";
import { checkDatabase } from "@/db/queries/health";
import { hasScope } from "@/lib/auth/access";
import { PAGE_GATE, type PageAnswer, type PageGate, type PageRequest, pageParams } from "@/lib/auth/page-gate";
import { databaseTrouble } from "@/lib/errors";
import { PAGES } from "@/lib/http/registry";
import { processSingleton } from "@/lib/process-singleton";
import { authIsOn, checkHost, sessionOperator } from "./gate";
import { pageSubjectExists } from "./page-subjects";
import { requestFacts } from "./request-facts";

const UNAVAILABLE: PageAnswer = { status: 503, retryAfterSeconds: 5 };

const NOT_FOUND: PageAnswer = { status: 404 };

export async function decidePage({ pattern, path, target, headers }: PageRequest): Promise<PageAnswer | null> {
  const scope = (PAGES as Partial<Record<string, (typeof PAGES)[keyof typeof PAGES]>>)[pattern];
  if (!scope) return null;
  try {
    checkHost(headers, "http://localhost/");
  } catch {
    return { status: 403 };
  }
  // Every page reads the database: one that is down would otherwise render its error page
  // inside a 200.
  if (!(await checkDatabase())) return UNAVAILABLE;
  try {
    const refusal = await accessAnswer(scope, target, headers);
    if (refusal) return refusal;
    // Only once access is granted: a caller who may not see the page learns nothing of what exists.
    const params = pageParams(pattern, path);
    return params && (await pageSubjectExists(pattern, params)) ? null : NOT_FOUND;
  } catch (error) {
    const trouble = databaseTrouble(error);
    if (trouble) return { status: 503, retryAfterSeconds: trouble === "busy" ? 2 : 5 };
    throw error;
  }
}

/** `requirePage`'s answer for a page's scope: a redirect to sign in, a 403, or null to go on. */
async function accessAnswer(
  scope: (typeof PAGES)[keyof typeof PAGES],
  target: string,
  headers: Headers,
): Promise<PageAnswer | null> {
  const facts = requestFacts(headers, "http://localhost/");
  const operator = await sessionOperator(headers, facts);
  if (scope === "public" || !(await authIsOn(facts))) return null;
  if (!operator) return { status: 307, location: `/sign-in?next=${encodeURIComponent(target)}` };
  if (scope === "admin" && !hasScope(operator, "admin")) return { status: 403 };
  return null;
}

/** Makes the gate findable by the HTTP server (called once at start-up). */
export function registerPageGate(): void {
  processSingleton<PageGate>(PAGE_GATE, () => decidePage);
}
