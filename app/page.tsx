import { Suspense } from "react";
import { countChains } from "@/db/queries/chains";
import { getFirstActivity, getOverviewFigures, listCollapseRates, listRecentCollapses } from "@/db/queries/overview";
import { getClassRetention, getOldestActivity } from "@/db/queries/retention";
import { retentionDaysFromEnv } from "@/db/workers/retention";
import { formatAge, formatUtc } from "@/lib/format";
import {
  alignOrigin,
  chooseStride,
  pivotCollapseRates,
  RANGE_KEYS,
  RANGES,
  rangeStart,
  type RangeKey,
} from "@/lib/chains/overview";
import { chainsHref } from "@/lib/routes";
import { parseSearchParams, type RawSearchParams } from "@/lib/url-state";
import { overviewParamsSchema } from "./search-params";
import { CollapseRateChart } from "@/components/charts/collapse-rate-chart";
import { Figures } from "@/components/overview/figures";
import { LineageFigure } from "@/components/overview/lineage-figure";
import { CanaryFigure } from "@/components/overview/canary-figure";
import { MarkerFigure } from "@/components/overview/marker-figure";
import { getMarkerFindingCounts } from "@/db/queries/marker-findings";
import { countCanaryRetention } from "@/db/queries/canaries";
import { countSuccessorsThatHitAWall } from "@/db/queries/trace-lineage";
import { FiguresSkeleton, PanelSkeleton } from "@/components/overview/overview-skeletons";
import { RecentCollapses } from "@/components/overview/recent-collapses";
import { requirePage } from "@/app/_access/page-access";
import { AutoRefresh } from "@/components/ui/auto-refresh";

export const dynamic = "force-dynamic";

export default async function OverviewPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  await requirePage("/");
  const { range } = parseSearchParams(overviewParamsSchema, await searchParams);
  const now = new Date();
  const since = rangeStart(range, now, range === "all" ? await getFirstActivity() : null);
  return (
    <>
      <div className="overview-head">
        <div>
          <h1>Overview</h1>
          <p className="subtitle">
            How compression chains are holding up: collapses, breaches, disagreements and broken receipts.
          </p>
          <Suspense fallback={null}>
            <RetentionNote now={now} />
          </Suspense>
        </div>
        <AutoRefresh />
        <nav className="segmented" aria-label="Time range" data-testid="range">
          {RANGE_KEYS.map((key) => (
            <a key={key} href={key === "7d" ? "/" : `/?range=${key}`} aria-current={key === range ? "true" : undefined}>
              {RANGES[key].label}
            </a>
          ))}
        </nav>
      </div>
      <Suspense key={`figures-${range}`} fallback={<FiguresSkeleton />}>
        <FiguresSection since={since} range={range} />
      </Suspense>
      <div className="grid-2">
        <Suspense key={`rates-${range}`} fallback={<PanelSkeleton label="Loading collapse rates" />}>
          <CollapseRateSection since={since} now={now} />
        </Suspense>
        <Suspense key={`recent-${range}`} fallback={<PanelSkeleton label="Loading recent collapses" />}>
          <RecentSection since={since} now={now} range={range} />
        </Suspense>
      </div>
    </>
  );
}

/** What is kept: the figures count the whole history, the lists only what retention left. */
async function RetentionNote({ now }: { now: Date }) {
  const days = retentionDaysFromEnv();
  const [oldest, byClass] = await Promise.all([getOldestActivity(), getClassRetention({ read: true })]);
  const daysText = (n: number) => `${n} ${n === 1 ? "day" : "days"}`;
  const own = [...byClass].map(([contentClass, kept]) => `${contentClass} ${daysText(kept)}`);
  const rest = days === null ? "for good (FLOORLINE_RETENTION_DAYS is not set)" : daysText(days);
  const kept =
    own.length === 0
      ? days === null
        ? "Keeping every chain (FLOORLINE_RETENTION_DAYS is not set)"
        : `Keeping ${daysText(days)}`
      : `Keeping ${own.join(", ")} (by ${own.length === 1 ? "its policy" : "their policies"}), every other class ${rest}`;
  return (
    <p className="muted small" data-testid="retention">
      {kept}; {oldest ? `oldest chain last active ${formatUtc(oldest)} (${formatAge(oldest, now)})` : "no chains yet"}.
    </p>
  );
}

async function FiguresSection({ since, range }: { since: Date | null; range: RangeKey }) {
  // "All time" with nothing recorded yet has no start: count everything, which is nothing.
  const from = range === "all" ? null : since;
  const [figures, walls, canaries, markers] = await Promise.all([
    getOverviewFigures(from),
    countSuccessorsThatHitAWall(from),
    countCanaryRetention(from),
    getMarkerFindingCounts(from),
  ]);
  return (
    <>
      <Figures figures={figures} range={range}>
        <LineageFigure count={walls} />
        {canaries.chains > 0 ? <CanaryFigure counts={canaries} /> : null}
        <MarkerFigure counts={markers} range={range} />
      </Figures>
      {figures.chains === 0 ? (
        <p className="panel empty" data-testid="overview-empty">
          No receipts {range === "all" ? "yet" : "in this range"}. Agents send them with{" "}
          <code>POST /api/v1/passes</code>; each names its chain, and the chain appears here with its first pass.
        </p>
      ) : null}
    </>
  );
}

async function CollapseRateSection({ since, now }: { since: Date | null; now: Date }) {
  const stride = chooseStride((now.getTime() - (since ?? now).getTime()) / 1000);
  const origin = alignOrigin(since ?? now, stride);
  const rows = since ? await listCollapseRates(origin, stride) : [];
  const { classes, points } = pivotCollapseRates(rows, origin, now, stride);
  return (
    <section className="panel" aria-label="Collapse rate per content class">
      <h2>Collapse rate per content class</h2>
      <p className="muted small">Of the chains that started in each period, the share that has collapsed so far.</p>
      <CollapseRateChart classes={classes} points={points} strideSeconds={stride} />
    </section>
  );
}

async function RecentSection({ since, now, range }: { since: Date | null; now: Date; range: RangeKey }) {
  // The saves in the range, as the "Chains guarded" figure counts them and the list it opens shows them.
  const filter = { status: ["guarded" as const], range: range === "all" ? undefined : range };
  const [items, saves] = await Promise.all([listRecentCollapses(since), countChains(filter)]);
  return (
    <section className="panel" aria-label="Most recent collapse points">
      <h2>Most recent collapse points</h2>
      <p className="muted small">Failures first; floors no boundary answered after them. Saves are counted apart.</p>
      <RecentCollapses
        items={items}
        now={now}
        saves={saves && { ...saves, href: chainsHref({ status: "guarded", range: filter.range }) }}
      />
    </section>
  );
}
