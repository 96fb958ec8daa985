// Judging a batch of pass receipts (the first steps of db/ingest/passes.ts): what judging reads
// from the database, each receipt's content measured against its chain's source (and again
// with the originals its CCR markers name), the verdict under the policy in force, the
// canaries' survival and the markers the content carries; and the same measurements made ahead
// of the transaction (measureAhead). Stores only the sources a batch makes known; the insert is
// the caller's.
import "server-only";
import type { Executor } from "../types";
import { getPoliciesInForce } from "../queries/policies";
import type { BatchEntry } from "./idempotent-batch";
import { loadMeasureInputs, type MeasureInputs, type ReadableOriginals, readableOriginals } from "./measure-context";
import { fillCanarySurvival } from "./canaries";
import { chainsWithLedger, type LedgerPass } from "./fact-ledger";
import { findMarkers } from "@/lib/measure/markers";
import { MAX_MARKERS_PER_PASS } from "@/lib/markers/findings";
import type { PassWire } from "@/lib/chains/types";
import { judgeReceipt } from "@/lib/guard/judge";
import type { PolicyInForce } from "@/lib/guard/policy";
import type { MeasuredContent } from "@/lib/content-checks/check-content";
import { type MeasureTask, type MeasureTaskResult, measureAllForIngest } from "@/lib/measure/pool";
import type { PassReceipt } from "@/lib/schemas/passes";

/** A pass as it is inserted: the wire row less what the database sets, plus the idempotency digest. */
export type NewPass = Omit<PassWire, "received_at"> & { body_digest: string; measured_density: number | null };

/** What judging a batch's receipts reads from the database, once per attempt. */
export interface Judging {
  policyOf(r: PassReceipt): PolicyInForce;
  inputs: MeasureInputs;
  readable: ReadableOriginals;
}

/** What judging reads, and stores the sources the batch makes known unless `storeSources` is false. */
export async function loadJudging(
  tx: Executor,
  receipts: readonly PassReceipt[],
  readsOriginals: boolean,
  storeSources = true,
): Promise<Judging> {
  const policyByClass = await getPoliciesInForce(
    receipts.map((r) => r.content_class),
    tx,
  );
  const readable = readableOriginals(readsOriginals);
  const inputs = await loadMeasureInputs(tx, receipts, readable, storeSources);
  const policyOf = (r: PassReceipt) => {
    const policy = policyByClass.get(r.content_class);
    if (!policy) throw new Error(`no policy in force for content class ${JSON.stringify(r.content_class)}`);
    return policy;
  };
  return { policyOf, inputs, readable };
}

/** The content of a receipt that carries none but names a cached original. */
const namedContent = (r: PassReceipt, inputs: MeasureInputs) => (r.content == null ? inputs.contentOf(r) : undefined);
/** The content the server reads for a receipt: its own, or the cached original it names. */
const contentRead = (r: PassReceipt, inputs: MeasureInputs) => r.content ?? namedContent(r, inputs);

/** A judged pass: the row to insert and the key of the entry it was judged from. */
export interface JudgedPass {
  key: string;
  row: NewPass;
}

export interface JudgedBatch {
  /** One per entry, in the entries' order. */
  passes: JudgedPass[];
  /** Each measured receipt's facts, by key, for its chain's facts ledger (db/ingest/fact-ledger.ts). */
  ledger: Map<string, LedgerPass>;
  /** The markers each receipt's content carries, by key (none: absent), for the marker findings. */
  markers: Map<string, string[]>;
}

/**
 * A batch's measurements by entry and task: measurePasses takes up one made before (ahead of
 * the transaction, or by an attempt rolled back) when its task is the very same (content,
 * source, format, required fields, facts asked and the originals its markers name), and
 * measures only the others.
 */
export class BatchMeasurements {
  private readonly byEntry = new Map<number, { task: MeasureTask; result: MeasureTaskResult | "failed" }[]>();

  take(i: number, task: MeasureTask): MeasureTaskResult | "failed" | undefined {
    return this.byEntry.get(i)?.find((made) => sameTask(made.task, task))?.result;
  }

  put(i: number, task: MeasureTask, result: MeasureTaskResult | "failed"): void {
    const made = this.byEntry.get(i);
    if (made) made.push({ task, result });
    else this.byEntry.set(i, [{ task, result }]);
  }
}

function sameTask(a: MeasureTask, b: MeasureTask): boolean {
  if (a.content !== b.content || (a.source ?? null) !== (b.source ?? null) || a.format !== b.format) return false;
  if (a.facts !== b.facts || !sameList(a.requiredFields ?? [], b.requiredFields ?? [])) return false;
  const [x, y] = [a.originals ?? new Map<string, string | null>(), b.originals ?? new Map<string, string | null>()];
  if (x.size !== y.size) return false;
  for (const [key, text] of x) if (y.get(key) !== text) return false;
  return true;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, k) => v === b[k]);

/**
 * Measures a batch's contents before its transaction, from what the database holds now and
 * storing nothing, into `made`: the transaction then measures again only what changed meanwhile
 * (a source or a ledger another batch stored, a policy changed), and holds its connection (the
 * embedded database's only one) and its locks for the writes alone. Only for a batch that
 * carries content: one that only names contents by hash is rarely measured, and reading twice
 * would cost every bare batch.
 */
export async function measureAhead(
  db: Executor,
  entries: readonly BatchEntry<PassReceipt>[],
  readsOriginals: boolean,
  made: BatchMeasurements,
): Promise<void> {
  const receipts = entries.map(({ item }) => item);
  if (!receipts.some((r) => r.content != null)) return;
  const judging = await loadJudging(db, receipts, readsOriginals, false);
  await measurePasses(db, entries, judging, made);
}

/** Each entry measured, judged under its policy, told its canaries' survival, and its markers read. */
export async function judgePasses(
  tx: Executor,
  entries: readonly BatchEntry<PassReceipt>[],
  judging: Judging,
  now: string,
  made: BatchMeasurements = new BatchMeasurements(),
): Promise<JudgedBatch> {
  const { measured, ledger } = await measurePasses(tx, entries, judging, made);
  const rows = entries.map(({ item: r, digest }, i) => {
    // Completed in place: a spread of the judged row costs more than the judging.
    const row = judgeReceipt(r, judging.policyOf(r), {
      content: namedContent(r, judging.inputs),
      measured: measured.get(i) ?? null,
    }) as NewPass;
    row.body_digest = digest;
    row.created_at = r.created_at ?? now;
    return row;
  });
  const receipts = entries.map(({ item }) => item);
  await fillCanarySurvival(tx, receipts, rows, (i) => contentRead(receipts[i] as PassReceipt, judging.inputs));
  return {
    passes: entries.map(({ key }, i) => ({ key, row: rows[i] as NewPass })),
    ledger,
    markers: markersOf(entries, judging.inputs),
  };
}

/** The markers each entry's content carries, by key, for those that carry any. */
function markersOf(entries: readonly BatchEntry<PassReceipt>[], inputs: MeasureInputs): Map<string, string[]> {
  const markers = new Map<string, string[]>();
  for (const { item: r, key } of entries) {
    const content = contentRead(r, inputs);
    const found = content == null ? [] : findMarkers(content, MAX_MARKERS_PER_PASS);
    if (found.length > 0) markers.set(key, found);
  }
  return markers;
}

/** One measurement to make: the content of the entry at `i` against its chain's source. */
interface MeasureJob {
  i: number;
  task: MeasureTask;
}

/**
 * Each entry's content measured against its chain's source, where both are known (by the
 * entry's position; "failed" where the measurement failed), and the facts each measurement
 * gave for its chain's ledger (by key).
 */
async function measurePasses(
  tx: Executor,
  entries: readonly BatchEntry<PassReceipt>[],
  judging: Judging,
  made: BatchMeasurements,
): Promise<{ measured: Map<number, MeasuredContent>; ledger: Map<string, LedgerPass> }> {
  const jobs = await measureJobs(tx, entries, judging);
  const first = await measureEach(jobs, new Map(), made);
  // Measured again, once, for the contents whose markers name an original the lookup found:
  // an original not found changes no measurement, so a caller who may read none is measured once.
  const unknown = new Map<number, string[]>();
  for (const [i, result] of first) {
    if (result !== "failed" && result.unknownMarkers.length > 0) unknown.set(i, result.unknownMarkers);
  }
  let results = first;
  if (unknown.size > 0) {
    const keys = [...new Set([...unknown.values()].flat())];
    const found = await judging.readable.byMarker(tx, keys);
    const markerTexts = new Map(keys.map((key) => [key, found.get(key) ?? null]));
    const again = jobs.filter(({ i }) => unknown.get(i)?.some((key) => found.has(key)));
    results = new Map([...first, ...(await measureEach(again, markerTexts, made))]);
  }
  const measured = new Map<number, MeasuredContent>();
  const ledger = new Map<string, LedgerPass>();
  for (const [i, result] of results) {
    measured.set(i, result === "failed" ? result : result.measurement);
    const { item: r, key } = entries[i] as BatchEntry<PassReceipt>;
    if (result !== "failed" && result.facts)
      ledger.set(key, { chainId: r.chain_id, passNumber: r.pass_number, facts: result.facts });
  }
  return { measured, ledger };
}

/** The measurements a batch asks for: entries whose chain's source and content are both known. */
async function measureJobs(
  tx: Executor,
  entries: readonly BatchEntry<PassReceipt>[],
  { inputs, policyOf }: Judging,
): Promise<MeasureJob[]> {
  // A chain with a ledger needs only each fact's state; one without, the list to make it.
  const withLedger = await chainsWithLedger(
    tx,
    entries.flatMap(({ item: r }) => (inputs.sourceOf(r.chain_id) === undefined ? [] : [r.chain_id])),
  );
  return entries.flatMap(({ item: r }, i) => {
    const source = inputs.sourceOf(r.chain_id);
    const content = contentRead(r, inputs);
    if (source === undefined || content == null) return [];
    const { format, required_fields } = policyOf(r);
    const facts = withLedger.has(r.chain_id) ? ("states" as const) : ("list" as const);
    return [{ i, task: { content, source, format, requiredFields: required_fields, facts } }];
  });
}

/**
 * The jobs measured on the pool, with the originals CCR markers name (by key; null: none, or
 * several), but for those `made` holds already; what is measured goes into `made`.
 */
async function measureEach(
  jobs: readonly MeasureJob[],
  markerTexts: ReadonlyMap<string, string | null>,
  made: BatchMeasurements,
): Promise<Map<number, MeasureTaskResult | "failed">> {
  const tasks = jobs.map(({ task }) => ({ ...task, originals: markerTexts }));
  const results = tasks.map((task, k) => made.take((jobs[k] as MeasureJob).i, task));
  const todo = results.flatMap((result, k) => (result === undefined ? [k] : []));
  const fresh = await measureAllForIngest(todo.map((k) => tasks[k] as MeasureTask));
  for (const [n, k] of todo.entries()) {
    const result = fresh[n] as MeasureTaskResult | "failed";
    made.put((jobs[k] as MeasureJob).i, tasks[k] as MeasureTask, result);
    results[k] = result;
  }
  return new Map(jobs.map(({ i }, k) => [i, results[k] as MeasureTaskResult | "failed"]));
}
