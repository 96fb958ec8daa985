import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { getChainSummary } from "@/db/queries/chains";
import { listChainBoundaries } from "@/db/queries/boundaries";
import { decodeSegment, parseSearchParams, type RawSearchParams } from "@/lib/url-state";
import { ChainHeader } from "@/components/chains/chain-header";
import { ChainWaiting } from "@/components/chains/chain-waiting";
import { ChainTabs } from "@/components/chains/chain-tabs";
import { ChartsSkeleton } from "@/components/chains/charts-skeleton";
import { TableSkeleton } from "@/components/ui/skeleton";
import { BoundariesSection } from "./boundaries-section";
import { MarkerFindingsSection } from "./marker-findings-section";
import { ChartsSection } from "./charts-section";
import { chainPageParamsSchema } from "../search-params";
import { PassesSection } from "./passes-section";
import { RecommendationSection } from "./recommendation-section";
import { RefusedReceipts, RefusedSection } from "./refused-section";
import { listRefusedReceipts } from "@/db/queries/refused-receipts";
import { requirePage } from "@/app/_access/page-access";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ chain_id: string }>; searchParams: Promise<RawSearchParams> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { chain_id } = await params;
  return { title: decodeSegment(chain_id) };
}

export default async function ChainPage({ params, searchParams }: Props) {
  await requirePage("/chains/{chain_id}", await params);
  const chainId = decodeSegment((await params).chain_id);
  const query = parseSearchParams(chainPageParamsSchema, await searchParams);
  const [summary, boundaries] = await Promise.all([getChainSummary(chainId), listChainBoundaries(chainId)]);
  if (!summary) {
    // No receipt of the chain was taken yet: the page waits for one, and says what was refused.
    const refused = await listRefusedReceipts(chainId);
    if (refused.total === 0) notFound();
    return (
      <>
        <ChainWaiting />
        <RefusedReceipts {...refused} />
      </>
    );
  }
  return (
    <>
      <ChainHeader summary={summary} now={new Date()} />
      <ChainTabs chainId={chainId} active="curves" />
      <Suspense fallback={<ChartsSkeleton />}>
        <ChartsSection
          chainId={chainId}
          summary={summary}
          boundaries={boundaries}
          selectedPassId={query.pass ?? null}
        />
      </Suspense>
      <Suspense fallback={null}>
        <BoundariesSection chainId={chainId} boundaries={boundaries} />
      </Suspense>
      <Suspense fallback={null}>
        <MarkerFindingsSection chainId={chainId} />
      </Suspense>
      <Suspense fallback={null}>
        <RecommendationSection summary={summary} boundaries={boundaries} />
      </Suspense>
      <Suspense fallback={<TableSkeleton label="Loading passes" />}>
        <PassesSection chainId={chainId} query={query} boundaries={boundaries} />
      </Suspense>
      <Suspense fallback={null}>
        <RefusedSection chainId={chainId} />
      </Suspense>
    </>
  );
}
