// The pass ingest use case: the server's verdict on each receipt under the policy in force,
// the client's verdict and digest compared with it, stored all or nothing and queued for the
// summariser (db/ingest/summaries.ts), idempotent per (chain_id, pass_id).
import "server-only";
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { getDb } from "../index";
import { z } from "zod";
import { col, queryRows } from "../sql";
import { retryTransient } from "../retry";
import { storeOriginal } from "../queries/originals/store";
import { answerIdempotentBatch, type BatchEntry, idempotencyConflict, uniqueEntries } from "./idempotent-batch";
import { insertedColumns, unnestRows } from "./unnest-insert";
import { passes } from "../schema";
import type { ColumnNames, Executor } from "../types";
import { requestSummaries } from "./summaries";
import type { MeasureInputs } from "./measure-context";
import {
  BatchMeasurements,
  type JudgedPass,
  judgePasses,
  loadJudging,
  measureAhead,
  type NewPass,
} from "./judge-passes";
import { foldFactLedgers } from "./fact-ledger";
import { type MarkedPassRow, recordIngestMarkerFindings } from "../queries/marker-findings";
import { recordIntegrityFindings } from "@/lib/observability/metrics";
import { recordPassesIngested } from "@/lib/observability/metrics";
import type { PassWire } from "@/lib/chains/types";
import { ApiError } from "@/lib/errors";
import { type PassReceipt, type PassResult, passReceiptDigest, serverChecksSchema } from "@/lib/schemas/passes";
import { VERDICTS } from "@/lib/guard/guard";

export type { NewPass } from "./judge-passes";

/** What the insert writes: every column of `passes` but the id and the receipt time (db/ingest/unnest-insert.ts). */
const PASS_COLUMNS = insertedColumns(passes, ["id", "received_at"]);
// A pass as inserted holds a value for each of those columns, and nothing else: a column
// added to the table, or a field added to the row, without the other does not compile.
type InsertedPassColumn = Exclude<ColumnNames<typeof passes.$inferSelect>, "id" | "received_at" | "content_broken">;
const newPassIsTheColumns: [
  Exclude<InsertedPassColumn, keyof NewPass> | Exclude<keyof NewPass, InsertedPassColumn>,
] extends [never]
  ? true
  : false = true;
void newPassIsTheColumns;

// NUL cannot occur in a stored string (the wire schemas refuse it), so it separates the two
// parts unambiguously; cheaper than JSON for the several lookups per receipt.
const keyOf = (chainId: string, passId: string) => `${chainId}\u0000${passId}`;

/** What a stored pass answers as the wire has it, not as the judged result types it. */
type StoredOnWire =
  | "server_checks"
  | "checked_verdict"
  | "checked_mismatch"
  | "measurement_mismatch"
  | "unmeasured"
  | "effective_verdict"
  | "canaries_surviving"
  | "canary_retention";
type StoredResult = Omit<PassResult, StoredOnWire> & Pick<PassWire, StoredOnWire>;

/** A stored receipt's answer, read back for a retry, and the digest of the body that made it. */
const STORED_ROW = {
  chain_id: col.text,
  pass_id: col.text,
  verdict: col.oneOf(VERDICTS),
  directive: col.text,
  manifest_digest: col.text,
  policy_version: col.int,
  client_mismatch: col.bool,
  server_checks: col.jsonOf(serverChecksSchema).nullable(),
  checked_verdict: col.oneOf(VERDICTS).nullable(),
  checked_mismatch: col.bool,
  measurement_mismatch: col.bool,
  unmeasured: col.bool,
  effective_verdict: col.oneOf(VERDICTS),
  canaries_surviving: col.jsonOf(z.array(z.string())).nullable(),
  canary_retention: col.number.nullable(),
  body_digest: col.text,
};
const STORED_COLUMNS = sql.raw(
  Object.keys(STORED_ROW)
    .map((column) => `p.${column}`)
    .join(", "),
);

/**
 * What the insert answers: how many passes it stored and queued and, on a retry, which
 * (chain_id, pass_id) it stored (null on the first try, which stores them all or fails).
 */
const INSERT_OUTCOME_ROW = {
  count: col.int,
  queued: col.int,
  keys: col.jsonOf(z.array(z.tuple([z.string(), z.string()]))).nullable(),
};

// The content-check fields appear only for a receipt that carried content, so the answer to
// every other receipt stays exactly the contract's.
function toResult(row: StoredResult): PassResult {
  return {
    chain_id: row.chain_id,
    pass_id: row.pass_id,
    verdict: row.verdict,
    directive: row.directive,
    manifest_digest: row.manifest_digest,
    policy_version: Number(row.policy_version),
    client_mismatch: row.client_mismatch,
    ...(row.server_checks
      ? {
          server_checks: row.server_checks,
          checked_verdict: row.checked_verdict,
          checked_mismatch: row.checked_mismatch,
          ...(row.server_checks.measurement_mismatch === undefined
            ? {}
            : { measurement_mismatch: row.measurement_mismatch }),
        }
      : {}),
    ...(row.unmeasured ? { unmeasured: true } : {}),
    ...(row.effective_verdict !== row.verdict ? { effective_verdict: row.effective_verdict } : {}),
    ...(row.canaries_surviving === null
      ? {}
      : { canaries_surviving: row.canaries_surviving, canary_retention: row.canary_retention ?? 0 }),
  };
}

/**
 * A stored result as a caller who may not read originals is answered: it may have been
 * measured for a caller who could, so the texts its checks quote (facts of the chain's source
 * and of the originals its markers name) are withheld. The fields stay, empty; the counts and
 * verdicts are the stored ones (a body sent again as it was tests no guess).
 */
function withoutExamples(result: PassResult): PassResult {
  const checks = result.server_checks;
  if (!checks || (checks.lost_examples === undefined && checks.recoverable_examples === undefined)) return result;
  return {
    ...result,
    server_checks: {
      ...checks,
      ...(checks.lost_examples === undefined ? {} : { lost_examples: [] }),
      ...(checks.recoverable_examples === undefined ? {} : { recoverable_examples: [] }),
    },
  };
}

// unique_violation, as either driver reports it (drizzle wraps it with the query as `cause`).
function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: string }).code === "23505") return true;
  }
  return false;
}

const conflict = (index: number, r: PassReceipt) =>
  idempotencyConflict(
    `Receipt ${index}`,
    `receipts.${index}`,
    `chain_id ${JSON.stringify(r.chain_id)} and pass_id ${JSON.stringify(r.pass_id)}`,
    "a receipt with this chain_id and pass_id",
  );

export interface IngestPassOptions {
  /** chain_id → the OpenTelemetry `service.name` that sent it; kept on a chain that has none yet. */
  serviceNames?: ReadonlyMap<string, string>;
  /**
   * Whether the caller may read cached originals (lib/auth/access.ts `mayReadOriginals`). Only
   * such a caller's passes are measured against them (db/ingest/measure-context.ts), and only
   * such a caller is answered the examples of a stored result, which may have been measured so.
   * Absent: it may not.
   */
  readsOriginals?: boolean;
}

/**
 * Stores receipts with the server's verdict, all or nothing. A receipt already stored with
 * the same content returns its stored result (evaluated under the policy of its day) and
 * writes nothing; the same key with different content fails the whole batch with 409.
 * Receipts with `cache_original` then store their content as the pass's cached original
 * (after the commit, through the originals store, which deduplicates a retry).
 */
export async function ingestPasses(
  receipts: readonly PassReceipt[],
  options: IngestPassOptions = {},
): Promise<{ results: PassResult[]; created: number }> {
  const outcome = await storePasses(receipts, options);
  for (const r of receipts) {
    if (!r.cache_original || r.content == null) continue;
    try {
      await storeOriginal({ original: r.content, chain_id: r.chain_id, pass_id: r.pass_id });
    } catch (error) {
      // Only a store smaller than this one content refuses it; the receipts stand without it.
      if (!(error instanceof ApiError && error.code === "payload_too_large")) throw error;
    }
  }
  return outcome;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const sha256Hex = (hash: string | null) => (hash !== null && SHA256_HEX.test(hash) ? hash.toLowerCase() : null);

const receiptKey = (r: PassReceipt) => keyOf(r.chain_id, r.pass_id);

/**
 * Whether a marker names an original the batch is about to store (its receipts' `content` with
 * `cache_original`, stored after the commit): such a marker is not unknown. Hashed only when asked.
 */
function heldBy(receipts: readonly PassReceipt[]): (marker: string) => boolean {
  let held: string[] | null = null;
  return (marker) => {
    held ??= receipts.flatMap((r) =>
      r.cache_original && r.content != null ? [createHash("sha256").update(r.content, "utf8").digest("hex")] : [],
    );
    return held.some((h) => h.startsWith(marker));
  };
}

/**
 * Stores a batch in one transaction, in these steps: load what judging needs, judge (measure,
 * judge, canaries), insert, answer the receipts stored before from what they were stored with,
 * record the marker findings and fold the facts ledgers of the passes inserted.
 */
async function storePasses(
  receipts: readonly PassReceipt[],
  options: IngestPassOptions,
): Promise<{ results: PassResult[]; created: number }> {
  const db = await getDb();
  const now = new Date().toISOString();
  const entries = uniqueEntries(receipts, receiptKey, conflict, passReceiptDigest);
  const readsOriginals = options.readsOriginals === true;
  const names = options.serviceNames?.size ? JSON.stringify(Object.fromEntries(options.serviceNames)) : null;

  // Measured first, outside the transaction; inside it, and in an attempt run again, only
  // what changed meanwhile is measured (judge-passes.ts BatchMeasurements).
  const made = new BatchMeasurements();
  await measureAhead(db, entries, readsOriginals, made);
  // A deadlock or serialisation failure rolls it all back: run it again before answering 503.
  const outcome = await retryTransient(() =>
    db.transaction(async (tx) => {
      const judging = await loadJudging(tx, receipts, readsOriginals);
      const judged = await judgePasses(tx, entries, judging, now, made);
      const inserted = await insertPasses(tx, judged.passes, names);
      const stored = await answerIdempotentBatch(
        receipts,
        { key: receiptKey, conflict, readStored: (retried) => readStoredResults(tx, retried, readsOriginals) },
        entries,
        answersOf(inserted, judging.inputs, readsOriginals),
      );
      const markerKinds = await recordIngestMarkerFindings(
        tx,
        markedPasses(inserted, judged.markers),
        heldBy(receipts),
      );
      // Only passes this batch stored: a resent receipt was folded when it was first stored.
      await foldFactLedgers(
        tx,
        inserted.flatMap(({ key }) => judged.ledger.get(key) ?? []),
      );
      return { stored, insertedRows: inserted.map(({ row }) => row), markerKinds };
    }),
  );
  // Counted once committed: a refused or conflicting batch counts nothing.
  recordPassesIngested(outcome.insertedRows);
  recordIntegrityFindings(outcome.markerKinds);
  // The chain summaries, roll-ups and outbox events follow, folded by the summariser.
  if (outcome.insertedRows.length > 0) await requestSummaries();
  return outcome.stored;
}

/**
 * Inserts the judged passes in one statement, the rows sent as one array per column
 * (db/ingest/pg-arrays.ts) and unpacked in the order sent, which is the order of their ids;
 * the passes it adds are queued for the summariser by chain. Answers the passes it stored: all
 * of them, or on a retry those not stored before.
 */
async function insertPasses(tx: Executor, passes: readonly JudgedPass[], names: string | null): Promise<JudgedPass[]> {
  const rows = passes.map(({ row }) => row);
  const statement = (skipStored: boolean) => sql`
    with new as (
      insert into passes ${unnestRows(PASS_COLUMNS, rows)}
      ${skipStored ? sql`on conflict (chain_id, pass_id) do nothing` : sql``}
      returning id, chain_id, pass_id
    ),
    queued as (
      insert into summary_queue (chain_ids, pass_ids, service_names)
      select array_agg(distinct chain_id), array_agg(id order by id), ${names}::jsonb from new
      having count(*) > 0
      returning 1
    )
    select (select count(*) from new) as count, (select count(*) from queued) as queued,
      case when (select count(*) from new) < ${rows.length}
        then coalesce((select json_agg(json_build_array(chain_id, pass_id)) from new), '[]') end as keys`;
  // A plain insert first, in a savepoint: checking every row for a stored twin costs about a
  // tenth of the statement, and a batch is rarely sent twice. A retry (some row stored
  // already) rolls back to the savepoint and skips what is stored.
  const [inserted] = await tx
    .transaction((savepoint) => queryRows(savepoint, statement(false), INSERT_OUTCOME_ROW))
    .catch((error: unknown) => {
      if (!isUniqueViolation(error)) throw error;
      return queryRows(tx, statement(true), INSERT_OUTCOME_ROW);
    });
  if (!inserted) throw new Error("the insert of passes answered no row");
  if (!inserted.keys) return [...passes];
  const added = new Set(inserted.keys.map(([c, p]) => keyOf(c, p)));
  return passes.filter(({ key }) => added.has(key));
}

/**
 * The answer to each pass inserted, by key. The texts a measurement quotes are the source's: a
 * caller who may not read stored data gets them only for a source it sent itself, in this batch.
 */
function answersOf(inserted: readonly JudgedPass[], inputs: MeasureInputs, readsOriginals: boolean) {
  return new Map(
    inserted.map(({ key, row }) => {
      const own = readsOriginals || inputs.sourceSentNow(row.chain_id);
      return [key, own ? toResult(row) : withoutExamples(toResult(row))];
    }),
  );
}

/** The stored answer and body digest of each of these entries, all of which are stored. */
async function readStoredResults(
  tx: Executor,
  entries: readonly BatchEntry<PassReceipt>[],
  readsOriginals: boolean,
): Promise<Map<string, { digest: string; result: PassResult }>> {
  const keys = entries.map(({ item }) => ({ chain_id: item.chain_id, pass_id: item.pass_id }));
  const stored = await queryRows(
    tx,
    sql`
    select ${STORED_COLUMNS}
    from passes p
    join json_to_recordset(${JSON.stringify(keys)}::json) as k(chain_id text, pass_id text)
      on p.chain_id = k.chain_id and p.pass_id = k.pass_id`,
    STORED_ROW,
  );
  const answer = readsOriginals ? toResult : (row: StoredResult) => withoutExamples(toResult(row));
  return new Map(
    stored.map((row) => [keyOf(row.chain_id, row.pass_id), { digest: row.body_digest, result: answer(row) }]),
  );
}

/** The inserted passes whose content carries markers or whose input is named by SHA-256. */
function markedPasses(inserted: readonly JudgedPass[], markers: ReadonlyMap<string, string[]>): MarkedPassRow[] {
  return inserted.flatMap(({ key, row }): MarkedPassRow[] => {
    const found = markers.get(key) ?? [];
    const input = sha256Hex(row.input_content_hash);
    if (found.length === 0 && input === null) return [];
    const { chain_id, pass_id, pass_number, content_class, context_tools } = row;
    return [{ chain_id, pass_id, pass_number, content_class, markers: found, input_hash: input, context_tools }];
  });
}
