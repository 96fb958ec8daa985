import Link from "next/link";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ACTION_SPACE_TRACE_LIMIT, chainHasActionSpace, getChainTraceConstraints } from "@/db/queries/action-space";
import { listTraceRejections } from "@/db/queries/traces";
import { listFindingsOfTraces } from "@/db/queries/trace-lineage";
import { buildActionSpace } from "@/lib/traces/action-space";
import { LineageFindingList } from "@/components/traces/lineage-findings";
import { AxiomTable, ForbiddenTable } from "@/components/traces/action-space-tables";
import { chainHref, chainsHref, traceHref, tracesHref } from "@/lib/routes";
import { decodeSegment } from "@/lib/url-state";
import { requirePage } from "@/app/_access/page-access";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ chain_id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Action space · ${decodeSegment((await params).chain_id)}` };
}

function TraceLinks({ ids }: { ids: string[] }) {
  return (
    <>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 ? ", " : ""}
          <Link href={traceHref(id)} className="mono">
            {id}
          </Link>
        </span>
      ))}
    </>
  );
}

export default async function ActionSpacePage({ params }: Props) {
  await requirePage("/chains/{chain_id}/action-space", await params);
  const chain_id = decodeSegment((await params).chain_id);
  const [known, { traces, truncated }, rejections] = await Promise.all([
    chainHasActionSpace(chain_id),
    getChainTraceConstraints(chain_id),
    listTraceRejections({ chain_id, limit: 1 }),
  ]);
  if (!known) notFound();
  const findings = [...(await listFindingsOfTraces(traces.map((t) => t.trace_id)))];
  const space = buildActionSpace(traces);
  const omitted = traces.reduce((n, t) => n + t.omitted_falsified_paths, 0);
  const mismatched = traces.filter((t) => t.digest_mismatch).length;

  return (
    <>
      <p className="audit-crumbs">
        <Link href={chainsHref()}>Chains</Link> /{" "}
        <Link href={chainHref(chain_id)} className="mono">
          {chain_id}
        </Link>{" "}
        /
      </p>
      <h1>Action space handed to a successor</h1>
      <p className="subtitle">
        The union of the binding axioms and forbidden paths across the {traces.length} trace
        {traces.length === 1 ? "" : "s"} of this chain, deduplicated (same text after folding case and whitespace), each
        with the traces and receipts that established it. An axiom that another trace falsifies is a conflict: the
        successor is being handed a contradiction.
      </p>

      <dl className="audit-facts audit-stats" data-testid="action-space-stats">
        <dt>Traces</dt>
        <dd>
          <Link href={tracesHref({ chain_id })}>{traces.length}</Link>
        </dd>
        <dt>Binding axioms</dt>
        <dd data-testid="axiom-total">{space.axioms.length}</dd>
        <dt>Forbidden paths</dt>
        <dd data-testid="forbidden-total">{space.forbidden.length}</dd>
        <dt>Conflicts</dt>
        <dd data-testid="conflict-total">
          {space.conflicts.length === 0 ? "0" : <span className="badge danger">{space.conflicts.length}</span>}
        </dd>
        <dt>Omitted falsified paths</dt>
        <dd data-testid="omitted-total">
          {omitted === 0 ? (
            "0"
          ) : (
            <span
              className="badge warn"
              title="Falsified paths with no deterministic receipt: not walls, a successor may retry them"
            >
              {omitted}
            </span>
          )}
        </dd>
        <dt>Refused submissions</dt>
        <dd data-testid="rejected-total">
          {rejections.total === 0 ? (
            "0"
          ) : (
            <Link href={tracesHref({ chain_id })}>
              <span className="badge danger">{rejections.total}</span>
            </Link>
          )}
        </dd>
        <dt>Successors that hit a wall</dt>
        <dd data-testid="lineage-total">
          {findings.length === 0 ? "0" : <span className="badge danger">{findings.length}</span>}
        </dd>
        <dt>Client digest disagreements</dt>
        <dd>{mismatched === 0 ? "0" : <span className="badge danger">{mismatched}</span>}</dd>
      </dl>

      {truncated ? (
        <p className="audit-notice" role="status">
          This chain has more than {ACTION_SPACE_TRACE_LIMIT} traces; only the oldest {ACTION_SPACE_TRACE_LIMIT} are
          included.
        </p>
      ) : null}

      {space.conflicts.length > 0 ? (
        <section
          className="panel audit-section audit-conflicts"
          aria-labelledby="conflicts-heading"
          data-testid="conflicts"
        >
          <h2 id="conflicts-heading">Conflicts ({space.conflicts.length})</h2>
          <ul className="audit-constraints">
            {space.conflicts.map((c) => (
              <li key={`${c.axiom_key}\u0000${c.forbidden_key}`} data-testid="conflict">
                <span>
                  Axiom <strong className="audit-pre">{c.axiom}</strong> (established in{" "}
                  <TraceLinks ids={c.axiom_trace_ids} />)
                </span>
                <span>
                  is falsified by <code className="audit-pre">{c.invalidation}</code> in{" "}
                  <TraceLinks ids={c.falsifying_trace_ids} />
                  {c.within_trace ? <span className="badge warn">same trace</span> : null}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {findings.length > 0 ? (
        <section className="panel audit-section" aria-labelledby="lineage-heading" data-testid="lineage-section">
          <h2 id="lineage-heading">Walls hit again across a lineage</h2>
          <p className="subtitle">
            Traces of this chain that walked into what one of their ancestors (named by parent_trace_id) had settled,
            with the ancestor&apos;s receipt beside each.
          </p>
          {findings.map(([traceId, list]) => (
            <div key={traceId} className="audit-section">
              <h3>
                <Link href={traceHref(traceId)} className="mono">
                  {traceId}
                </Link>
              </h3>
              <LineageFindingList findings={list} />
            </div>
          ))}
        </section>
      ) : null}

      {traces.length === 0 ? (
        <p className="empty" data-testid="action-space-empty">
          No trace names this chain yet: the successor inherits no binding axiom and no forbidden path.
        </p>
      ) : (
        <>
          <section aria-labelledby="permitted-heading">
            <h2 id="permitted-heading">Binding axioms: what must remain true</h2>
            <AxiomTable rows={space.axioms} />
          </section>
          <section aria-labelledby="forbidden-heading">
            <h2 id="forbidden-heading">Forbidden paths: walls already hit</h2>
            <ForbiddenTable rows={space.forbidden} />
          </section>
        </>
      )}
    </>
  );
}
