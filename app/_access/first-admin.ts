// The first admin operator, made from the sign-in page while no operator exists, so a server
// whose first API key turned access control on does not lock its owner out of the dashboard.
// Offered to a request from this machine (the open mode's test: loopback peer, loopback listen
// address, no proxy) and, where FLOORLINE_API_TOKEN is set, to whoever gives that token; every
// other request is refused before anything is read of it. Once an operator exists the offer
// is gone, and two creations at once leave one (db/queries/access.ts `createFirstOperator`).
import "server-only";
import { forbidden, unauthorized } from "next/navigation";
import { createFirstOperator, operatorsExist } from "@/db/queries/access";
import { bearerWaitSeconds, recordBearerFailure } from "@/db/queries/sessions";
import { crossSiteRefusal } from "@/lib/auth/access";
import { constantTimeEqual } from "@/lib/auth/credentials";
import { accessSettings, type FirstAdminOffer, firstAdminOffer } from "@/lib/auth/decision";
import { HashGateBusy } from "@/lib/auth/hash-gate";
import { env, envRecord } from "@/lib/env";
import { ApiError, zodIssues } from "@/lib/errors";
import { logger } from "@/lib/observability/log";
import { type FirstAdminAnswer, firstAdminSchema } from "@/lib/schemas/access";
import { checkHost } from "./gate";
import { requestFacts } from "./request-facts";

/** How this request may make the first admin, ignoring whether one exists; null when it never may. */
function offerFor(headers: Headers, operatorsExist: boolean): FirstAdminOffer | null {
  return firstAdminOffer({
    ...accessSettings(envRecord()),
    operatorsExist,
    request: requestFacts(headers, "http://localhost/"),
  });
}

/** What the sign-in page offers this request: the form (with or without the token field), or nothing. */
export async function firstAdminOfferFor(headers: Headers): Promise<FirstAdminOffer | null> {
  if (!offerFor(headers, false)) return null;
  return offerFor(headers, await operatorsExist());
}

function tokenOf(input: unknown): string {
  const token = input && typeof input === "object" ? (input as { token?: unknown }).token : undefined;
  return typeof token === "string" ? token : "";
}

/**
 * Makes the first admin for the request behind `headers` (the server action's). A request
 * that is never offered it (another host, another site, another machine without the token)
 * is refused with 403/401 as any action is; a wrong token, bad input or an operator made
 * meanwhile are answered in words for the form.
 */
export async function createFirstAdmin(headers: Headers, input: unknown): Promise<FirstAdminAnswer> {
  try {
    checkHost(headers, "http://localhost/");
  } catch (error) {
    if (error instanceof ApiError) forbidden();
    throw error;
  }
  const facts = requestFacts(headers, "http://localhost/");
  // scripts/start.ts refuses these before Next.js sees them; a bare `next start` does not.
  const proto = facts.viaTrustedProxy ? headers.get("x-forwarded-proto") : null;
  if (crossSiteRefusal("POST", headers, headers.get("host"), proto)) forbidden();
  const offer = offerFor(headers, false);
  if (!offer) unauthorized();
  if (offer === "token") {
    const wait = await bearerWaitSeconds(facts.client);
    if (wait > 0) return { ok: false, message: `Too many wrong tokens from this address: wait ${wait} s.` };
    const token = env("FLOORLINE_API_TOKEN");
    if (!token || !constantTimeEqual(tokenOf(input), token)) {
      await recordBearerFailure(facts.client);
      return { ok: false, message: "That is not this server's FLOORLINE_API_TOKEN." };
    }
  }
  const parsed = firstAdminSchema.safeParse(input);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    return { ok: false, message: `Not created: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}.`, issues };
  }
  let created: Awaited<ReturnType<typeof createFirstOperator>>;
  try {
    created = await createFirstOperator({ name: parsed.data.name, password: parsed.data.password });
  } catch (error) {
    if (error instanceof HashGateBusy) return { ok: false, message: "The server is busy; try again in a second." };
    throw error;
  }
  if (!created) return { ok: false, message: "An operator exists now: sign in with it, or ask an admin for one." };
  logger.info({ operator: created.name, via: offer }, "the first admin operator was created from the sign-in page");
  return { ok: true, name: created.name };
}
