import { listTraceRejections } from "@/db/queries/traces";
import { encodeCursor } from "@/lib/http/cursor";
import { Pager, newestFirstSteps } from "@/components/ui/pager";
import { RejectionTable } from "@/components/traces/rejection-table";
import { REJECTION_PAGE_SIZE, rejectionCursor, tracesPageHref, type TracesPageParams } from "./search-params";

/** Fail-closed submissions beside the trace list: agents that tried to promote an unverified conclusion. */
export async function RejectionListSection({ params }: { params: TracesPageParams }) {
  const after = rejectionCursor(params.r_after);
  const before = after.key ? undefined : rejectionCursor(params.r_before).key;
  const page = await listTraceRejections({
    chain_id: params.chain_id,
    limit: REJECTION_PAGE_SIZE,
    after: after.key,
    before,
  });
  const paged = Boolean(params.r_after || params.r_before);
  return (
    <>
      <p className="subtitle">
        <strong data-testid="rejection-total">{page.total}</strong> submission{page.total === 1 ? "" : "s"} refused
        {params.chain_id ? (
          <>
            {" "}
            on chain <span className="mono">{params.chain_id}</span>
          </>
        ) : null}
        : a VERIFIED_CONCLUSION came without a verification receipt, so nothing of the trace was stored.
      </p>
      <RejectionTable rows={page.items} />
      <Pager
        label="Rejection pages"
        testId="rejection-pager"
        steps={newestFirstSteps({
          first: paged ? tracesPageHref(params, { r_after: undefined, r_before: undefined }) : null,
          newer: page.prev
            ? tracesPageHref(params, { r_after: undefined, r_before: encodeCursor([...page.prev]) })
            : null,
          older: page.next
            ? tracesPageHref(params, { r_before: undefined, r_after: encodeCursor([...page.next]) })
            : null,
        })}
      />
    </>
  );
}
