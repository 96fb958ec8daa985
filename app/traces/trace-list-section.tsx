import { listTraces } from "@/db/queries/traces";
import { encodeCursor } from "@/lib/http/cursor";
import { Pager, newestFirstSteps } from "@/components/ui/pager";
import { TraceTable } from "@/components/traces/trace-table";
import { TRACE_PAGE_SIZE, traceCursor, tracesPageHref, type TracesPageParams } from "./search-params";

/** A page of distilled traces under the filters, newest first. */
export async function TraceListSection({ params }: { params: TracesPageParams }) {
  const after = traceCursor(params.after);
  const before = after.key ? { rejected: false, key: undefined } : traceCursor(params.before);
  const page = await listTraces({
    chain_id: params.chain_id,
    mismatch: params.mismatch,
    walls: params.walls,
    q: params.q,
    limit: TRACE_PAGE_SIZE,
    after: after.key,
    before: before.key,
  });
  const paged = Boolean(params.after || params.before);
  const filtered = Boolean(params.q || params.chain_id || params.mismatch !== undefined || params.walls !== undefined);
  return (
    <>
      {after.rejected || before.rejected ? (
        <p className="audit-notice" role="status">
          That page link is no longer valid; showing the newest traces instead.
        </p>
      ) : null}
      <TraceTable
        rows={page.items}
        empty={
          filtered ? "No trace matches these filters." : "No trace has been stored yet. POST one to /api/v1/traces."
        }
      />
      <Pager
        label="Trace pages"
        testId="trace-pager"
        steps={newestFirstSteps({
          first: paged ? tracesPageHref(params, { after: undefined, before: undefined }) : null,
          newer: page.prev ? tracesPageHref(params, { after: undefined, before: encodeCursor([...page.prev]) }) : null,
          older: page.next ? tracesPageHref(params, { before: undefined, after: encodeCursor([...page.next]) }) : null,
        })}
      />
    </>
  );
}
