// Walls a successor walked into (docs/lineage.md): what the successor did on one side, the
// ancestor's wording and receipt on the other, linked to the ancestor. Shown on the trace page
// and, per trace, on the action-space page.
import Link from "next/link";
import type { TraceFindingWire } from "@/lib/schemas/traces";
import { traceHref } from "@/lib/routes";
import { parseInvalidation } from "@/lib/traces/action-space";

const KIND_LABEL: Record<TraceFindingWire["kind"], string> = {
  wall_reexplored: "wall re-explored",
  axiom_contradicted: "axiom contradicted",
};

const generations = (depth: number) => (depth === 1 ? "parent" : `${depth} generations up`);

function SuccessorSide({ finding }: { finding: TraceFindingWire }) {
  const node = finding.node_id ? (
    <>
      node <code>{finding.node_id}</code>
      {finding.node_type ? <span className="audit-receipt"> ({finding.node_type})</span> : null}
      {finding.node_count > 1 ? <span className="audit-receipt"> and {finding.node_count - 1} more</span> : null}
    </>
  ) : null;
  if (finding.kind === "wall_reexplored") {
    return (
      <>
        <span className="lineage-side-label">This trace took the path again</span>
        <span>{node}</span>
        <span className="audit-pre audit-constraint">{finding.ancestor_text}</span>
      </>
    );
  }
  const { path, receipt } = parseInvalidation(finding.text ?? "");
  return (
    <>
      <span className="lineage-side-label">This trace ruled it out</span>
      {node ? <span>{node}</span> : null}
      <span className="audit-pre audit-constraint audit-forbidden" title={finding.text ?? undefined}>
        {path}
      </span>
      <span className="audit-receipt">
        ruled out by <code className="audit-pre">{receipt}</code>
      </span>
    </>
  );
}

export function LineageFindingList({
  findings,
  testId = "lineage-findings",
}: {
  findings: readonly TraceFindingWire[];
  testId?: string;
}) {
  return (
    <ul className="lineage-findings" data-testid={testId}>
      {findings.map((f) => (
        <li
          key={`${f.kind}:${f.ancestor_trace_id}:${f.ancestor_text}`}
          className="lineage-finding"
          data-testid="lineage-finding"
          data-kind={f.kind}
        >
          <span className={`badge ${f.kind === "axiom_contradicted" ? "danger" : "warn"} lineage-kind`}>
            {KIND_LABEL[f.kind]}
          </span>
          <div className="lineage-side">
            <SuccessorSide finding={f} />
          </div>
          <div className="lineage-side lineage-ancestor" data-testid="lineage-ancestor">
            <span className="lineage-side-label">
              Ancestor{" "}
              <Link href={traceHref(f.ancestor_trace_id)} className="mono">
                {f.ancestor_trace_id}
              </Link>{" "}
              ({generations(f.depth)}) {f.kind === "wall_reexplored" ? "had ruled it out" : "held it binding"}
            </span>
            <span className={`audit-pre audit-constraint${f.kind === "wall_reexplored" ? " audit-forbidden" : ""}`}>
              {f.ancestor_text}
            </span>
            <span className="audit-receipt">
              {f.kind === "wall_reexplored" ? "ruled out by" : "proof receipt"}{" "}
              <code className="audit-pre" data-testid="lineage-receipt">
                {f.ancestor_receipt}
              </code>
            </span>
          </div>
        </li>
      ))}
    </ul>
  );
}
