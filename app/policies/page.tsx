import type { Metadata } from "next";
import { Suspense } from "react";
import { listChainClasses, listClassStats } from "@/db/queries/chains";
import { getPolicy, listPolicies, listPolicyVersions } from "@/db/queries/policies";
import { defaultPolicyFor } from "@/lib/guard/policy";
import { DEFAULT_CONTENT_CLASS } from "@/lib/schemas/passes";
import { formatBytes } from "@/lib/format";
import type { RawSearchParams } from "@/lib/url-state";
import { parsePoliciesParams } from "./search-params";
import { PoliciesTable } from "@/components/policies/policies-table";
import type { PolicyRow } from "@/components/policies/policy-columns";
import { PolicyEditor } from "@/components/policies/policy-editor";
import { VersionHistory } from "@/components/policies/version-history";
import { WhatIfForm } from "@/components/policies/what-if-form";
import { FloorOptions } from "@/components/policies/floor-options";
import { TableSkeleton } from "@/components/ui/skeleton";
import { ChartsSkeleton } from "@/components/chains/charts-skeleton";
import { WhatIfSection } from "./what-if-section";
import { previewFloorChange } from "./actions";
import { getCachedRecommendation } from "@/db/queries/recommendation";
import type { PolicyInForce } from "@/lib/guard/policy";
import { requirePage } from "@/app/_access/page-access";
import { hasScope } from "@/lib/auth/access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Policies" };

export default async function PoliciesPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const principal = await requirePage("/policies");
  const params = parsePoliciesParams(await searchParams);
  const [stored, seen, stats] = await Promise.all([listPolicies(), listChainClasses(), listClassStats()]);
  const statsOf = new Map(stats.map((s) => [s.content_class, s]));
  const byClass = new Map(stored.map((p) => [p.content_class, p]));
  // "default" is the class of every receipt that names none: always listed, with its floor.
  const classes = [...new Set([DEFAULT_CONTENT_CLASS, ...stored.map((p) => p.content_class), ...seen])].sort();
  const rows: PolicyRow[] = classes.map((c) => {
    const p = byClass.get(c) ?? defaultPolicyFor(c);
    return {
      content_class: c,
      version: p.version,
      min_size_bytes: p.min_size_bytes,
      min_semantic_density: p.min_semantic_density,
      max_pass_number: p.max_pass_number,
      required_fields: p.required_fields,
      retention_days: p.retention_days,
      chains: statsOf.get(c)?.chains ?? 0,
      collapsed: statsOf.get(c)?.collapsed ?? 0,
      updated_at: p.created_at,
    };
  });

  return (
    <>
      <h1>Policies</h1>
      <p className="subtitle">
        The floor of each content class: the size, density and pass limit under which the guard halts compression.
        Choose a class to edit its floor or try a candidate against the recorded chains.
      </p>
      <div className="panel flush">
        <PoliciesTable rows={rows} selected={params.class ?? null} />
      </div>
      <form method="get" action="/policies" className="toolbar new-class" aria-label="Set the floor of another class">
        <label>
          Set the floor of another content class{" "}
          <input
            name="class"
            required
            pattern="[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}"
            placeholder="e.g. tool-output"
            title="1-64 letters, digits, '.', '_', ':' or '-'"
          />
        </label>
        <button type="submit">Open</button>
      </form>
      {params.class ? (
        <Suspense key={params.class} fallback={<TableSkeleton label="Loading policy" />}>
          <ClassSection params={params} contentClass={params.class} canEdit={hasScope(principal, "admin")} />
        </Suspense>
      ) : (
        <p className="muted hint-block">
          Choose a content class above to see its version history, edit its floor or run a what-if.
        </p>
      )}
    </>
  );
}

async function ClassSection({
  params,
  contentClass,
  canEdit,
}: {
  params: ReturnType<typeof parsePoliciesParams>;
  contentClass: string;
  canEdit: boolean;
}) {
  const [current, versions] = await Promise.all([getPolicy(contentClass), listPolicyVersions(contentClass)]);
  const floor = {
    min_size_bytes: current.min_size_bytes,
    min_semantic_density: current.min_semantic_density,
    max_pass_number: current.max_pass_number,
  };
  return (
    <section aria-label={`Policy of ${contentClass}`} className="class-section">
      <h2 className="class-title" id="class">
        {contentClass}{" "}
        <span className="muted">
          {current.version === 0 ? "built-in default" : `v${current.version} in force`}: size ≥{" "}
          {formatBytes(current.min_size_bytes)}, density ≥ {current.min_semantic_density}
          {current.density_source === "measured" ? " (measured)" : ""}, pass ≤ {current.max_pass_number}
        </span>
      </h2>
      <div className="grid-2">
        <section className="panel" aria-label="Edit floor">
          <h3>Edit floor</h3>
          <PolicyEditor
            current={current}
            draft={params.candidate ?? floor}
            fromWhatIf={params.candidate !== null}
            canEdit={canEdit}
            preview={previewFloorChange}
          />
        </section>
        <section className="panel" aria-label="Version history">
          <h3>Version history</h3>
          <VersionHistory versions={versions} canEdit={canEdit} preview={previewFloorChange} />
        </section>
      </div>
      <section className="panel" aria-label="Recommended floors" id="recommendation">
        <h3>Recommended floors</h3>
        <Suspense fallback={<TableSkeleton label="Replaying the recorded chains" />}>
          <RecommendationSection current={current} canEdit={canEdit} />
        </Suspense>
      </section>
      <section className="panel what-if" aria-label="What-if" id="what-if">
        <h3>What if the floor were…</h3>
        <p className="muted small">
          Replays every recorded chain of {contentClass} through the guard under a candidate floor and compares where
          each would collapse with the floor in force.
        </p>
        <WhatIfForm contentClass={contentClass} values={params.candidate ?? floor} chain={params.chain} />
        {params.candidateError ? (
          <p className="danger-text" role="alert">
            Candidate not run: {params.candidateError}
          </p>
        ) : null}
        {params.candidate ? (
          <Suspense key={JSON.stringify(params)} fallback={<ChartsSkeleton />}>
            <WhatIfSection
              contentClass={contentClass}
              current={current}
              candidate={params.candidate}
              chain={params.chain}
              canEdit={canEdit}
              preview={previewFloorChange}
            />
          </Suspense>
        ) : null}
      </section>
    </section>
  );
}

async function RecommendationSection({ current, canEdit }: { current: PolicyInForce; canEdit: boolean }) {
  const result = await getCachedRecommendation(current.content_class);
  return (
    <FloorOptions
      data={
        result.ok
          ? { kind: "ok", ...result.recommendation }
          : { kind: "not_enough_data", chains: result.chains, minimum: result.minimum }
      }
      inForce={current}
      canEdit={canEdit}
      preview={previewFloorChange}
    />
  );
}
