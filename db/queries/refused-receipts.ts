// Refused pass receipts (docs/ingest.md, "Refused receipts"): what the API answered 409 or 422 to,
// kept by the chain each receipt names so that the chain page can say what never arrived and
// why. Written after the refusal, outside its transaction and never failing it: the refusal
// itself changes nothing, and a trouble here is logged, not answered.
import "server-only";
import { desc, eq, sql } from "drizzle-orm";
import type { ApiError } from "@/lib/errors";
import { errorFields, logger } from "@/lib/observability/log";
import { getDb, getReadDb } from "../index";
import { refusedReceipts } from "../schema";
import { onlyRow } from "../sql";

/** Receipts kept of one refused request: a batch names up to thousands, the first few say enough. */
export const REFUSED_PER_REQUEST = 20;
/** Refusals kept per chain, the latest. */
export const REFUSED_PER_CHAIN = 200;
/** How long a refusal is kept. */
const REFUSED_KEPT_DAYS = 7;
/** Longest id or text kept, in characters (a chain id is at most 256). */
const MAX_TEXT = 500;

export interface RefusedReceipt {
  id: number;
  pass_id: string | null;
  pass_number: number | null;
  status: number;
  code: string;
  reason: string;
  issue: string | null;
  received_at: string;
}

/** At most MAX_TEXT characters, a NUL (which a text column refuses) shown as U+FFFD. */
const cut = (s: string) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}...` : s).replaceAll("\u0000", "\ufffd");
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** The receipts of a refused body that name a chain, at most REFUSED_PER_REQUEST, with their path in it. */
function namedReceipts(body: unknown): { at: string; receipt: Record<string, unknown> }[] {
  const batch = isObject(body) && Array.isArray(body.receipts);
  const items: unknown[] = batch ? (body.receipts as unknown[]) : [body];
  const named: { at: string; receipt: Record<string, unknown> }[] = [];
  for (let i = 0; i < items.length && named.length < REFUSED_PER_REQUEST; i++) {
    const item = items[i];
    if (!isObject(item) || typeof item.chain_id !== "string") continue;
    // A chain id with a NUL names no chain a page can show.
    if (item.chain_id.length === 0 || item.chain_id.length > 256 || item.chain_id.includes("\u0000")) continue;
    named.push({ at: batch ? `receipts.${i}` : "", receipt: item });
  }
  return named;
}

/** The first issue of the answer that names the receipt at `at` (any issue when the body was one receipt). */
function issueOf(error: ApiError, at: string): string | null {
  const issues = error.details.issues ?? [];
  const own = at === "" ? issues[0] : issues.find((i) => i.path === at || i.path.startsWith(`${at}.`));
  return own ? cut(`${own.path}: ${own.message}`) : null;
}

/**
 * Keeps what was refused of `body` (a parsed request body) and why. Only a 409 or 422 of a body
 * that parsed: anything else never read a receipt. Never throws.
 */
export async function recordRefusedReceipts(body: unknown, error: ApiError): Promise<void> {
  if (error.status !== 409 && error.status !== 422) return;
  const rows = namedReceipts(body).map(({ at, receipt }) => ({
    chainId: receipt.chain_id as string,
    passId: typeof receipt.pass_id === "string" ? cut(receipt.pass_id) : null,
    passNumber:
      typeof receipt.pass_number === "number" && Number.isSafeInteger(receipt.pass_number) ? receipt.pass_number : null,
    status: error.status,
    code: error.code,
    reason: cut(error.message),
    issue: issueOf(error, at),
  }));
  if (rows.length === 0) return;
  try {
    const db = await getDb();
    await db.insert(refusedReceipts).values(rows);
    const chains = [...new Set(rows.map((r) => r.chainId))];
    // The latest REFUSED_PER_CHAIN of each chain named, and nothing older than REFUSED_KEPT_DAYS.
    await db.execute(sql`
      delete from refused_receipts r
      where (r.chain_id in ${chains} and r.id not in (
          select k.id from refused_receipts k where k.chain_id = r.chain_id
          order by k.received_at desc, k.id desc limit ${REFUSED_PER_CHAIN}))
        or r.received_at < now() - make_interval(days => ${REFUSED_KEPT_DAYS})`);
  } catch (trouble) {
    logger.warn({ err: errorFields(trouble) }, "refused receipts: not recorded");
  }
}

/** The chain's refused receipts, latest first, at most `limit`, and how many are kept. */
export async function listRefusedReceipts(
  chainId: string,
  limit = 50,
): Promise<{ total: number; items: RefusedReceipt[] }> {
  const db = await getReadDb();
  const rows = await db
    .select()
    .from(refusedReceipts)
    .where(eq(refusedReceipts.chainId, chainId))
    .orderBy(desc(refusedReceipts.receivedAt), desc(refusedReceipts.id))
    .limit(limit);
  const count = onlyRow(
    await db
      .select({ n: sql<number>`count(*)::int` })
      .from(refusedReceipts)
      .where(eq(refusedReceipts.chainId, chainId)),
  );
  return {
    total: Number(count.n),
    items: rows.map((r) => ({
      id: r.id,
      pass_id: r.passId,
      pass_number: r.passNumber,
      status: r.status,
      code: r.code,
      reason: r.reason,
      issue: r.issue,
      received_at: r.receivedAt.toISOString(),
    })),
  };
}
