// The OTLP ingest use case: the receipts an export carried, stored through the same pass and
// boundary use cases as the JSON API (same verdicts, same natural keys, same idempotency), with
// OTLP's partial-success semantics on top: a span that cannot be stored is rejected and
// counted, the others are stored. Exporters retry whole exports, so a retry must find every
// stored receipt identical and write nothing.
import "server-only";
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
