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
import { getPoliciesInForce } from "../queries/policies";
import { storeOriginal } from "../queries/originals/store";
import { type BatchEntry, idempotencyConflict, storeIdempotentBatch, uniqueEntries } from "./idempotent-batch";
import { insertedColumns, unnestRows } from "./unnest-insert";
import { passes } from "../schema";
import type { ColumnNames } from "../types";
import { requestSummaries } from "./summaries";
import { loadMeasureInputs, readableOriginals } from "./measure-context";
import { fillCanarySurvival } from "./canaries";
import { chainsWithLedger, foldFactLedgers, type LedgerPass } from "./fact-ledger";
import { type MarkedPassRow, recordIngestMarkerFindings } from "../queries/marker-findings";
import { findMarkers } from "@/lib/measure/markers";
import { MAX_MARKERS_PER_PASS } from "@/lib/markers/findings";
import { recordIntegrityFindings } from "@/lib/observability/metrics";
import { recordPassesIngested } from "@/lib/observability/metrics";
import type { PassWire } from "@/lib/chains/types";
import { judgeReceipt } from "@/lib/guard/judge";
import type { MeasuredContent } from "@/lib/content-checks/check-content";
import { forEachLimited, measureConcurrency, measureForIngest } from "@/lib/measure/pool";
import { ApiError } from "@/lib/errors";
import { type PassReceipt, type PassResult, passReceiptDigest, serverChecksSchema } from "@/lib/schemas/passes";
import { VERDICTS } from "@/lib/guard/guard";

/** A pass as it is inserted: the wire row less what the database sets, plus the idempotency digest. */
export type NewPass = Omit<PassWire, "received_at"> & { body_digest: string; measured_density: number | null };

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

async function storePasses(
  receipts: readonly PassReceipt[],
  options: IngestPassOptions,
): Promise<{ results: PassResult[]; created: number }> {
  const db = await getDb();
  const now = new Date().toISOString();
  const key = (r: PassReceipt) => keyOf(r.chain_id, r.pass_id);
  const entries = uniqueEntries(receipts, key, conflict, passReceiptDigest);

  const names = options.serviceNames?.size ? JSON.stringify(Object.fromEntries(options.serviceNames)) : null;

  // A deadlock or serialisation failure rolls it all back: run it again before answering 503.
  const outcome = await retryTransient(() =>
    db.transaction(async (tx) => {
      // Filled by the insert below; fresh on every attempt, since a retry starts over.
      const insertedRows: NewPass[] = [];
      const policyByClass = await getPoliciesInForce(
        receipts.map((r) => r.content_class),
        tx,
      );
      const readable = readableOriginals(options.readsOriginals === true);
      const inputs = await loadMeasureInputs(tx, receipts, readable);
      // The originals CCR markers name, by the marker's key (null: none, or several); filled
      // when a measurement first asks, so content without markers is measured once.
      const markerTexts = new Map<string, string | null>();
      // Each measured receipt's facts, by key, for its chain's facts ledger (db/ingest/fact-ledger.ts).
      const ledgerPasses = new Map<string, LedgerPass>();
      // The markers each judged receipt's content carries, by key: for the marker findings.
      const markersOf = new Map<string, string[]>();
      const policyOf = (r: PassReceipt) => {
        const policy = policyByClass.get(r.content_class);
        if (!policy) throw new Error(`no policy in force for content class ${JSON.stringify(r.content_class)}`);
        return policy;
      };
      /** The content of a receipt that carries none but names a cached original. */
      const namedContent = (r: PassReceipt) => (r.content == null ? inputs.contentOf(r) : undefined);
      /** Each receipt's content measured against its chain's source, where both are known. */
      const measureBatch = async (batch: readonly BatchEntry<PassReceipt>[]) => {
        const measured = new Map<number, MeasuredContent>();
        // A chain with a ledger needs only each fact's state; one without, the list to make it.
        const withLedger = await chainsWithLedger(
          tx,
          batch.flatMap(({ item: r }) => (inputs.sourceOf(r.chain_id) === undefined ? [] : [r.chain_id])),
        );
        const tasks = batch.flatMap(({ item: r }, i) => {
          const source = inputs.sourceOf(r.chain_id);
          const content = r.content ?? namedContent(r);
          if (source === undefined || content == null) return [];
          const { format, required_fields } = policyOf(r);
          const facts = withLedger.has(r.chain_id) ? ("states" as const) : ("list" as const);
          return [{ i, task: { content, source, format, requiredFields: required_fields, facts } }];
        });
        let asking = tasks;
        // Twice at most: the second time for the contents whose markers name an original the
        // first round's lookup found (an original not found changes no measurement, so a
        // caller who may read none is measured once).
        for (let round = 0; asking.length > 0; round++) {
          const named = new Map<number, string[]>();
          await forEachLimited(asking, measureConcurrency(), async ({ i, task }) => {
            const result = await measureForIngest({ ...task, originals: markerTexts });
            measured.set(i, result === "failed" ? result : result.measurement);
            const r = (batch[i] as BatchEntry<PassReceipt>).item;
            if (result === "failed" || !result.facts) ledgerPasses.delete(key(r));
            else ledgerPasses.set(key(r), { chainId: r.chain_id, passNumber: r.pass_number, facts: result.facts });
            if (result !== "failed" && round === 0 && result.unknownMarkers.length > 0)
              named.set(i, result.unknownMarkers);
          });
          if (named.size === 0) break;
          const keys = new Set([...named.values()].flat());
          const found = await readable.byMarker(tx, [...keys]);
          for (const key of keys) markerTexts.set(key, found.get(key) ?? null);
          asking = tasks.filter(({ i }) => named.get(i)?.some((key) => found.has(key)));
        }
        return measured;
      };
      /** Rows of `batch`, judged with what measuring their content gave. */
      const judgeBatch = async (batch: readonly BatchEntry<PassReceipt>[]): Promise<NewPass[]> => {
        const measured = await measureBatch(batch);
        const rows = batch.map(({ item: r, digest }, i) => {
          // Completed in place: a spread of the judged row costs more than the judging.
          const row = judgeReceipt(r, policyOf(r), {
            content: namedContent(r),
            measured: measured.get(i) ?? null,
          }) as NewPass;
          row.body_digest = digest;
          row.created_at = r.created_at ?? now;
          return row;
        });
        const items = batch.map(({ item }) => item);
        for (const { item: r } of batch) {
          const content = r.content ?? namedContent(r);
          const markers = content == null ? [] : findMarkers(content, MAX_MARKERS_PER_PASS);
          if (markers.length > 0) markersOf.set(key(r), markers);
        }
        await fillCanarySurvival(tx, items, rows, (i) => {
          const r = items[i] as PassReceipt;
          return r.content ?? namedContent(r);
        });
        return rows;
      };

      const stored = await storeIdempotentBatch(
        receipts,
        {
          key,
          conflict,
          insert: async (batch) => {
            const rows = await judgeBatch(batch);
            // One statement for the whole batch, the rows sent as one array per column
            // (db/ingest/pg-arrays.ts) and unpacked in the order sent, which is the order of
            // their ids; the passes it adds are queued for the summariser by chain.
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
            // A plain insert first, in a savepoint: checking every row for a stored twin costs
            // about a tenth of the statement, and a batch is rarely sent twice. A retry (some
            // row stored already) rolls back to the savepoint and skips what is stored.
            const [inserted] = await tx
              .transaction((savepoint) => queryRows(savepoint, statement(false), INSERT_OUTCOME_ROW))
              .catch((error: unknown) => {
                if (!isUniqueViolation(error)) throw error;
                return queryRows(tx, statement(true), INSERT_OUTCOME_ROW);
              });
            if (!inserted) throw new Error("the insert of passes answered no row");
            const added = inserted.keys ? new Set(inserted.keys.map(([c, p]) => keyOf(c, p))) : null;
            const results = new Map<string, PassResult>();
            for (let i = 0; i < rows.length; i++) {
              const row = rows[i] as NewPass;
              const k = (batch[i] as BatchEntry<PassReceipt>).key;
              if (added && !added.has(k)) continue;
              // The texts a measurement quotes are the source's: a caller who may not read
              // stored data gets them only for a source it sent itself, in this batch.
              const own = options.readsOriginals === true || inputs.sourceSentNow(row.chain_id);
              results.set(k, own ? toResult(row) : withoutExamples(toResult(row)));
              insertedRows.push(row);
            }
            return results;
          },
          readStored: async (batch) => {
            const keys = batch.map(({ item }) => ({ chain_id: item.chain_id, pass_id: item.pass_id }));
            const stored = await queryRows(
              tx,
              sql`
              select ${STORED_COLUMNS}
              from passes p
              join json_to_recordset(${JSON.stringify(keys)}::json) as k(chain_id text, pass_id text)
                on p.chain_id = k.chain_id and p.pass_id = k.pass_id`,
              STORED_ROW,
            );
            const answer =
              options.readsOriginals === true ? toResult : (row: StoredResult) => withoutExamples(toResult(row));
            return new Map(
              stored.map((row) => [keyOf(row.chain_id, row.pass_id), { digest: row.body_digest, result: answer(row) }]),
            );
          },
        },
        entries,
      );
      const markerKinds = await recordIngestMarkerFindings(
        tx,
        insertedRows.flatMap((row): MarkedPassRow[] => {
          const markers = markersOf.get(keyOf(row.chain_id, row.pass_id)) ?? [];
          const input = sha256Hex(row.input_content_hash);
          if (markers.length === 0 && input === null) return [];
          const { chain_id, pass_id, pass_number, content_class, context_tools } = row;
          return [{ chain_id, pass_id, pass_number, content_class, markers, input_hash: input, context_tools }];
        }),
        heldBy(receipts),
      );
      // Only passes this batch stored: a resent receipt was folded when it was first stored.
      await foldFactLedgers(
        tx,
        insertedRows.flatMap((row) => ledgerPasses.get(keyOf(row.chain_id, row.pass_id)) ?? []),
      );
      return { stored, insertedRows, markerKinds };
    }),
  );
  // Counted once committed: a refused or conflicting batch counts nothing.
  recordPassesIngested(outcome.insertedRows);
  recordIntegrityFindings(outcome.markerKinds);
  // The chain summaries, roll-ups and outbox events follow, folded by the summariser.
  if (outcome.insertedRows.length > 0) await requestSummaries();
  return outcome.stored;
}
