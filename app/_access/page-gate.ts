// The page check, asked by scripts/start.ts before a page starts to stream (the contract is
// lib/auth/page-gate.ts). It asks the one access decision as `requirePage` does and says a
// refusal in the same words (`pageRefusal`); the page's own check stays the check of record.
// Then it asks whether the path names anything stored (page-subjects.ts): this one only lets
// the answer carry its real status.
import "server-only";
import { checkDatabase } from "@/db/queries/health";
import {
  PAGE_GATE,
  type PageAnswer,
  type PageGate,
  type PageRequest,
  pageParams,
  pageRefusal,
} from "@/lib/auth/page-gate";
import { databaseTrouble } from "@/lib/errors";
import { PAGES } from "@/lib/http/registry";
import { processSingleton } from "@/lib/process-singleton";
import { checkHost, decideBySession } from "./gate";
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
  const decision = await decideBySession(headers, requestFacts(headers, "http://localhost/"), scope);
  return "admit" in decision ? null : pageRefusal(decision, target);
}

/** Makes the gate findable by the HTTP server (called once at start-up). */
export function registerPageGate(): void {
  processSingleton<PageGate>(PAGE_GATE, () => decidePage);
}
