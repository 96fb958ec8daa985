import { Suspense } from "react";
import type { Metadata } from "next";
import { TraceFilters } from "@/components/traces/trace-filters";
import { TableSkeleton } from "@/components/ui/skeleton";
import { parseSearchParamsWithNotices, type RawSearchParams } from "@/lib/url-state";
import { IgnoredParamsNotice } from "@/components/ui/ignored-params-notice";
import { RejectionListSection } from "./rejection-list-section";
import { tracesPageParamsSchema } from "./search-params";
import { TraceListSection } from "./trace-list-section";
import { requirePage } from "@/app/_access/page-access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Traces" };

export default async function TracesPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  await requirePage("/traces");
  const { params, ignored } = parseSearchParamsWithNotices(tracesPageParamsSchema, await searchParams, {
    quiet: ["after", "before", "r_after", "r_before"],
  });
  // Keys make each list suspend again when its own page or the filters change.
  const traceKey = JSON.stringify([
    params.q,
    params.chain_id,
    params.mismatch,
    params.walls,
    params.after,
    params.before,
  ]);
  const rejectionKey = JSON.stringify([params.chain_id, params.r_after, params.r_before]);
  return (
    <>
      <h1>Distilled traces</h1>
      <p className="subtitle">
        What agents concluded and ruled out: binding axioms with their proof receipts, falsified paths kept as negative
        constraints, and the submissions refused for promoting an unverified conclusion.
      </p>
      <IgnoredParamsNotice ignored={ignored} />
      <div className="traces-layout">
        <section aria-labelledby="traces-heading">
          <h2 id="traces-heading">Traces</h2>
          <TraceFilters q={params.q} chainId={params.chain_id} mismatch={params.mismatch} walls={params.walls} />
          <Suspense key={traceKey} fallback={<TableSkeleton rows={8} label="Loading traces" />}>
            <TraceListSection params={params} />
          </Suspense>
        </section>
        <section aria-labelledby="rejections-heading" className="panel rejections-panel">
          <h2 id="rejections-heading">Rejected submissions</h2>
          <Suspense key={rejectionKey} fallback={<TableSkeleton rows={4} label="Loading rejected submissions" />}>
            <RejectionListSection params={params} />
          </Suspense>
        </section>
      </div>
    </>
  );
}
