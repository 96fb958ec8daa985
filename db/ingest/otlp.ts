// The OTLP ingest use case: the receipts an export carried, stored through the same pass and
// boundary use cases as the JSON API (same verdicts, same natural keys, same idempotency), with
// OTLP's partial-success semantics on top: a span that cannot be stored is rejected and
// counted, the others are stored. Exporters retry whole exports, so a retry must find every
// stored receipt identical and write nothing.
import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../index";
import { col, queryRows } from "../sql";
import { ingestBoundaries } from "./boundaries";
import { ingestPasses } from "./passes";
import { ApiError } from "@/lib/errors";
import { type OtlpBoundary, type OtlpPass, type OtlpReceipts, partialSuccessMessage } from "@/lib/otlp/receipts";
import { MAX_BOUNDARY_BATCH } from "@/lib/schemas/boundaries";
import { MAX_PASS_BATCH } from "@/lib/schemas/passes";

export interface OtlpIngestResult {
  rejectedSpans: number;
  errorMessage: string;
  storedPasses: number;
  storedBoundaries: number;
}

// Each conflicting receipt costs a transaction to find; past this many in one export the
// export is refused whole (409) rather than retried receipt by receipt.
const MAX_CONFLICTS = 32;

/** The index of the item a 409 names (`receipts.N` / `boundaries.N`), or null for any other error. */
function conflictIndex(error: unknown): number | null {
  if (!(error instanceof ApiError) || error.code !== "idempotency_conflict") return null;
  const path = error.details.issues?.[0]?.path ?? "";
  const match = /^[a-z]+\.(\d+)$/.exec(path);
  return match ? Number(match[1]) : null;
}

/**
 * Stores `items` in chunks through `store`; an item whose key was stored with another body is
 * taken out (and reported) and the rest of its chunk stored again. Chunks are separate
 * transactions: a failure part-way leaves earlier chunks stored, which the exporter's retry
 * then finds identical.
 */
async function storeSkippingConflicts<T>(
  items: readonly T[],
  chunkSize: number,
  store: (chunk: T[]) => Promise<{ created: number }>,
  onConflict: (item: T, error: ApiError) => void,
): Promise<number> {
  let created = 0;
  let conflicts = 0;
  for (let start = 0; start < items.length; start += chunkSize) {
    const chunk = items.slice(start, start + chunkSize);
    for (;;) {
      if (chunk.length === 0) break;
      try {
        created += (await store(chunk)).created;
        break;
      } catch (error) {
        const index = conflictIndex(error);
        const item = index === null ? undefined : chunk[index];
        if (item === undefined || ++conflicts > MAX_CONFLICTS) throw error;
        onConflict(item, error as ApiError);
        chunk.splice(index as number, 1);
      }
    }
  }
  return created;
}

/**
 * Gives each compaction span without a pass number (lib/otlp/receipts.ts) its chain's next
 * number, in the order the spans started (then by span id): after the chain's passes already
 * stored and those of this export that name their number. A span whose pass is already stored
 * keeps that pass's number, so an exporter's retry is the same receipt and writes nothing.
 * Spans of one conversation that arrive in separate exports are numbered in the order they
 * arrive; two exports of one conversation stored at the same moment can give one number twice
 * (the chain then shows `repeated_pass`): `floorline.compaction.pass_number` avoids both.
 */
async function numberCompactions(passes: readonly OtlpPass[]): Promise<void> {
  const unnumbered = passes.filter((p) => p.unnumbered);
  if (unnumbered.length === 0) return;
  const chainIds = [...new Set(unnumbered.map((p) => p.receipt.chain_id))];
  const stored = await queryRows(
    await getDb(),
    sql`select chain_id, pass_id, pass_number from passes
        where chain_id in (select json_array_elements_text(${JSON.stringify(chainIds)}::json))`,
    { chain_id: col.text, pass_id: col.text, pass_number: col.int },
  );
  const last = new Map<string, number>();
  const storedNumber = new Map<string, number>();
  const keyOf = (chainId: string, passId: string) => `${chainId}\u0000${passId}`;
  for (const row of stored) {
    storedNumber.set(keyOf(row.chain_id, row.pass_id), row.pass_number);
    last.set(row.chain_id, Math.max(last.get(row.chain_id) ?? 0, row.pass_number));
  }
  for (const p of passes) {
    if (p.unnumbered || !chainIds.includes(p.receipt.chain_id)) continue;
    last.set(p.receipt.chain_id, Math.max(last.get(p.receipt.chain_id) ?? 0, p.receipt.pass_number));
  }
  const inOrder = [...unnumbered].sort((a, b) => {
    const x = a.unnumbered as NonNullable<OtlpPass["unnumbered"]>;
    const y = b.unnumbered as NonNullable<OtlpPass["unnumbered"]>;
    if (x.startTimeUnixNano !== y.startTimeUnixNano) return x.startTimeUnixNano < y.startTimeUnixNano ? -1 : 1;
    return x.spanId < y.spanId ? -1 : x.spanId > y.spanId ? 1 : 0;
  });
  for (const p of inOrder) {
    const chainId = p.receipt.chain_id;
    let number = storedNumber.get(keyOf(chainId, p.receipt.pass_id));
    if (number === undefined) {
      number = (last.get(chainId) ?? 0) + 1;
      last.set(chainId, number);
      // A span sent twice in one export is one pass.
      storedNumber.set(keyOf(chainId, p.receipt.pass_id), number);
    }
    p.receipt.pass_number = number;
    for (const boundary of p.unnumbered?.boundaries ?? []) boundary.pass_number = number;
  }
}

/** `readsOriginals`: whether the exporter's credential may read cached originals (db/ingest/passes.ts). */
export async function ingestOtlpReceipts(
  receipts: OtlpReceipts,
  { readsOriginals }: { readsOriginals: boolean },
): Promise<OtlpIngestResult> {
  let rejectedSpans = receipts.rejectedSpans;
  let firstProblem = receipts.firstProblem;
  const reject = (span: string, error: ApiError) => {
    rejectedSpans++;
    if (firstProblem === "") firstProblem = `${span}: ${error.message}`;
  };

  await numberCompactions(receipts.passes);
  const serviceNames = new Map<string, string>();
  for (const p of receipts.passes) {
    if (p.serviceName !== null && !serviceNames.has(p.receipt.chain_id)) {
      serviceNames.set(p.receipt.chain_id, p.serviceName);
    }
  }
  const storedPasses = await storeSkippingConflicts<OtlpPass>(
    receipts.passes,
    MAX_PASS_BATCH,
    (chunk) =>
      ingestPasses(
        chunk.map((p) => p.receipt),
        { serviceNames, readsOriginals },
      ),
    (p, error) => reject(p.span, error),
  );
  const storedBoundaries = await storeSkippingConflicts<OtlpBoundary>(
    receipts.boundaries,
    MAX_BOUNDARY_BATCH,
    (chunk) => ingestBoundaries(chunk.map((b) => b.receipt)),
    (b, error) => reject(b.span, error),
  );
  return {
    rejectedSpans,
    errorMessage: partialSuccessMessage(firstProblem, rejectedSpans),
    storedPasses,
    storedBoundaries,
  };
}
