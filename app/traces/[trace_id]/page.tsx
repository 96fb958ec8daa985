import Link from "next/link";
import { notFound } from "next/navigation";
import type { Metadata } from "next";
import { getTrace } from "@/db/queries/traces";
import { listFindingsAgainst } from "@/db/queries/trace-lineage";
import { LineageFindingList } from "@/components/traces/lineage-findings";
import { LINEAGE_MAX_DEPTH } from "@/lib/traces/lineage";
import { nodeOutcomes, parseInvalidation } from "@/lib/traces/action-space";
import { DigestBadge } from "@/components/traces/digest-badge";
import { formatUtc } from "@/lib/format";
import { actionSpaceHref, chainHref, traceHref, tracesHref } from "@/lib/routes";
import { decodeSegment } from "@/lib/url-state";
import { NodeTable, type NodeRow } from "@/components/traces/node-table";
import { requirePage } from "@/app/_access/page-access";

export const dynamic = "force-dynamic";

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

type Props = { params: Promise<{ trace_id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Trace ${decodeSegment((await params).trace_id)}` };
}

export default async function TracePage({ params }: Props) {
  await requirePage("/traces/{trace_id}", await params);
  const trace_id = decodeSegment((await params).trace_id);
  const [trace, successors] = await Promise.all([getTrace(trace_id), listFindingsAgainst(trace_id)]);
  if (!trace) notFound();

  // nodeOutcomes answers one outcome per node, in order.
  const nodes = trace.nodes;
  const nodeRows: NodeRow[] | null = nodes
    ? nodeOutcomes(nodes).flatMap((outcome, index) => {
        const node = nodes[index];
        return node ? [{ ...node, index, outcome }] : [];
      })
    : null;
  const axiomCount = trace.conclusions.length;
  const residual = {
    conclusions: trace.conclusions,
    eviction_boundary_index: trace.eviction_boundary_index,
    residual_digest: trace.residual_digest,
  };

  return (
    <>
      <p className="audit-crumbs">
        <Link href={tracesHref()}>Traces</Link> /
      </p>
      <h1 className="audit-title">{trace.trace_id}</h1>
      <p className="subtitle">
        {trace.chain_id ? (
          <>
            Chain{" "}
            <Link href={chainHref(trace.chain_id)} className="mono">
              {trace.chain_id}
            </Link>{" "}
            · <Link href={actionSpaceHref(trace.chain_id)}>action space handed to a successor</Link> ·{" "}
          </>
        ) : (
          <>No chain · </>
        )}
        stored <time dateTime={trace.created_at}>{formatUtc(trace.created_at)}</time>
        {trace.parent_trace_id ? (
          <>
            {" "}
            · continues{" "}
            <Link href={traceHref(trace.parent_trace_id)} className="mono" data-testid="parent-trace">
              {trace.parent_trace_id}
            </Link>
          </>
        ) : null}
      </p>

      {trace.findings.length > 0 ? (
        <section className="panel audit-section" aria-labelledby="lineage-heading" data-testid="lineage-section">
          <h2 id="lineage-heading">Walls hit again ({trace.findings.length})</h2>
          <p className="subtitle">
            This trace walked into what an ancestor (up to {LINEAGE_MAX_DEPTH} generations up) had already settled:
            paths it ruled out, or axioms it held binding. Matched by wording, case and spacing aside; a paraphrase is
            not caught.
          </p>
          <LineageFindingList findings={trace.findings} />
        </section>
      ) : trace.parent_trace_id ? (
        <p className="subtitle" data-testid="lineage-clear">
          No wall of its lineage hit again.
        </p>
      ) : null}

      <section className="panel audit-section" aria-labelledby="digest-heading">
        <h2 id="digest-heading">Residual digest</h2>
        <dl className="audit-facts">
          <dt>Server (reference algorithm)</dt>
          <dd>
            <code data-testid="residual-digest">{trace.residual_digest}</code>
          </dd>
          <dt>Client</dt>
          <dd>
            {trace.client_residual_digest === null ? null : (
              <code data-testid="client-digest">{trace.client_residual_digest}</code>
            )}{" "}
            <DigestBadge mismatch={trace.digest_mismatch} clientDigest={trace.client_residual_digest} />
          </dd>
          <dt>Nodes submitted</dt>
          <dd>
            {trace.node_count}: {plural(axiomCount, "binding axiom")},{" "}
            {plural(trace.invalidated_paths.length, "distinct invalidated path")},{" "}
            {plural(trace.pruned_chatter_count, "exploratory node")} pruned
          </dd>
          <dt>Omitted falsified paths</dt>
          <dd data-testid="omitted-count" data-count={trace.omitted_falsified_paths}>
            {trace.omitted_falsified_paths === 0 ? (
              "none"
            ) : (
              <span className="badge warn">{trace.omitted_falsified_paths} omitted: no deterministic receipt</span>
            )}
          </dd>
        </dl>
        {trace.omitted_falsified_paths > 0 ? (
          <p className="audit-notice" role="note">
            {trace.omitted_falsified_paths === 1
              ? "One falsified path was dropped, as the reference does, because nothing deterministic ruled it out. It is not a negative constraint: a successor is free to try it again."
              : `${trace.omitted_falsified_paths} falsified paths were dropped, as the reference does, because nothing deterministic ruled them out. They are not negative constraints: a successor is free to try them again.`}
          </p>
        ) : null}
      </section>

      <div className="grid-2">
        <section className="panel audit-section" aria-labelledby="axioms-heading">
          <h2 id="axioms-heading">Binding axioms ({axiomCount})</h2>
          {axiomCount === 0 ? (
            <p className="empty">No conclusion was verified: the trace binds its successor to nothing.</p>
          ) : (
            <ol className="audit-constraints" data-testid="axioms">
              {trace.conclusions.map((c, i) => (
                // Two conclusions may carry the same axiom and receipt; their order is the trace's.
                // biome-ignore lint/suspicious/noArrayIndexKey: the list is stored and never reorders
                <li key={i} data-testid="axiom">
                  <span className="audit-pre audit-constraint">{c.axiom}</span>
                  <span className="audit-receipt">
                    proof receipt <code className="audit-pre">{c.proof_receipt}</code>
                  </span>
                </li>
              ))}
            </ol>
          )}
        </section>

        <section className="panel audit-section" aria-labelledby="walls-heading">
          <h2 id="walls-heading">Invalidated paths ({trace.invalidated_paths.length})</h2>
          <p className="subtitle">Negative constraints: walls already hit, not to be retried.</p>
          {trace.invalidated_paths.length === 0 ? (
            <p className="empty">No path was ruled out with a receipt.</p>
          ) : (
            <ul className="audit-constraints" data-testid="invalidations">
              {trace.invalidated_paths.map((text) => {
                const { path, receipt } = parseInvalidation(text);
                return (
                  <li key={text} data-testid="invalidation" title={text}>
                    <span className="audit-pre audit-constraint audit-forbidden">{path}</span>
                    <span className="audit-receipt">
                      ruled out by <code className="audit-pre">{receipt}</code>
                    </span>
                  </li>
                );
              })}
            </ul>
          )}
          {axiomCount === 0 && trace.invalidated_paths.length > 0 ? (
            <p className="audit-notice" role="note">
              With no binding axiom the reference residual has no conclusion to carry these paths, so the residual
              handed over lists none; they count in its digest and are kept here.
            </p>
          ) : null}
        </section>
      </div>

      <section className="panel audit-section" aria-labelledby="boundary-heading">
        <h2 id="boundary-heading">Eviction boundary</h2>
        <p data-testid="eviction-boundary">
          Index <strong>{trace.eviction_boundary_index}</strong> of {trace.node_count} node
          {trace.node_count === 1 ? "" : "s"}: the trace reached a terminal state, so every node before the boundary can
          be evicted from context and only the residual is handed on.
        </p>
      </section>

      <section aria-labelledby="nodes-heading">
        <h2 id="nodes-heading">Raw nodes</h2>
        {nodeRows ? (
          <>
            <p className="subtitle">
              Kept at the client&apos;s request (keep_nodes). Nodes that did not survive into the residual are struck
              through.
            </p>
            <NodeTable rows={nodeRows} />
            {/* A divider that says what it divides: text, read as it is shown, rather than a separator role. */}
            <p className="audit-boundary">eviction boundary · index {trace.eviction_boundary_index}</p>
          </>
        ) : (
          <p className="empty" data-testid="nodes-evicted">
            The raw trace was evicted: it was submitted without keep_nodes, so only the residual above was kept, as the
            reference intends.
          </p>
        )}
      </section>

      {successors.length > 0 ? (
        <section className="panel audit-section" aria-labelledby="successors-heading" data-testid="successor-findings">
          <h2 id="successors-heading">Successors that hit this trace&apos;s walls</h2>
          <ul className="audit-sources">
            {successors.map((f) => (
              <li key={`${f.trace_id}:${f.kind}:${f.ancestor_text}`}>
                <Link href={traceHref(f.trace_id)} className="mono">
                  {f.trace_id}
                </Link>{" "}
                <span className={`badge ${f.kind === "axiom_contradicted" ? "danger" : "warn"}`}>
                  {f.kind === "axiom_contradicted" ? "axiom contradicted" : "wall re-explored"}
                </span>{" "}
                <span className="audit-pre">{f.ancestor_text}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <details className="panel audit-section audit-residual">
        <summary>Residual as handed to a successor (JSON)</summary>
        <pre>{JSON.stringify(residual, null, 2)}</pre>
      </details>
    </>
  );
}
