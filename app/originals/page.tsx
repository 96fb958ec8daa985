import type { Metadata } from "next";
import { Suspense } from "react";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { listOriginals } from "@/db/queries/originals/browse";
import { encodeCursor } from "@/lib/http/cursor";
import { OriginalsCounters } from "@/components/originals/originals-counters";
import { OriginalsFilters } from "@/components/originals/originals-filters";
import { OriginalsTable } from "@/components/originals/originals-table";
import { Pager } from "@/components/ui/pager";
import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";
import type { RawSearchParams } from "@/lib/url-state";
import { IgnoredParamsNotice } from "@/components/ui/ignored-params-notice";
import { parseOriginalsPageParams, type OriginalsPageQuery } from "./search-params";
import { requirePage } from "@/app/_access/page-access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Originals" };

async function CountersSection() {
  return <OriginalsCounters stats={await getOriginalStats(24)} />;
}

async function TableSection({ query }: { query: OriginalsPageQuery }) {
  const { items, next } = await listOriginals(query.filter, query.after);
  const nextParams = new URLSearchParams(query.base);
  if (next) nextParams.set("cursor", encodeCursor(next));
  return (
    <>
      <OriginalsTable
        rows={items}
        sort={{ sort: query.filter.sort, order: query.filter.order, base: query.filtersOnly }}
      />
      <Pager
        label="Pages of originals"
        steps={[
          { href: query.after ? `/originals?${query.base}` : null, text: "⇤ First" },
          { href: next ? `/originals?${nextParams}` : null, text: "Next →", rel: "next", testId: "next-page" },
        ]}
      />
    </>
  );
}

export default async function OriginalsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  await requirePage("/originals");
  const query = parseOriginalsPageParams(await searchParams);
  return (
    <>
      <h1>Originals</h1>
      <p className="subtitle">
        Uncompressed tool outputs kept for <code>headroom_retrieve</code>, least recently retrieved evicted first. Gone
        entries keep a tombstone so agents hear &ldquo;gone, don&rsquo;t retry&rdquo;, not &ldquo;never existed&rdquo;.
      </p>
      <Suspense fallback={<Skeleton height={168} label="Loading counters" />}>
        <CountersSection />
      </Suspense>
      <h2>Stored originals</h2>
      <IgnoredParamsNotice ignored={query.ignored} />
      <OriginalsFilters filter={query.filter} />
      <Suspense key={query.base + String(query.after)} fallback={<TableSkeleton label="Loading originals" />}>
        <TableSection query={query} />
      </Suspense>
    </>
  );
}
