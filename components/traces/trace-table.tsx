"use client";
import Link from "next/link";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import type { TraceSummary } from "@/lib/schemas/traces";
import { DigestBadge } from "./digest-badge";
import { actionSpaceHref, traceHref } from "@/lib/routes";
import { Stamp } from "@/components/ui/stamp";

const columns: ColumnDef<TraceSummary>[] = [
  {
    id: "trace",
    header: "Trace",
    cell: ({ row }) => (
      <Link
        prefetch={false}
        href={traceHref(row.original.trace_id)}
        className="mono audit-nowrap"
        data-testid="trace-link"
      >
        {row.original.trace_id}
      </Link>
    ),
  },
  {
    id: "chain",
    header: "Chain",
    cell: ({ row }) =>
      row.original.chain_id === null ? (
        <span className="audit-subtle">none</span>
      ) : (
        <Link
          prefetch={false}
          href={actionSpaceHref(row.original.chain_id)}
          className="mono"
          title="The action space this chain hands to a successor"
        >
          {row.original.chain_id}
        </Link>
      ),
  },
  {
    id: "axioms",
    header: "Axioms",
    cell: ({ row }) => {
      const { axioms, axiom_count } = row.original;
      return (
        <span className="audit-stack">
          <span data-testid="axiom-count">{axiom_count}</span>
          {axioms[0] !== undefined ? (
            <span className="audit-preview" title={axioms.join("\n")}>
              {axioms[0]}
              {axiom_count > 1 ? ` (+${axiom_count - 1} more)` : ""}
            </span>
          ) : null}
        </span>
      );
    },
  },
  {
    id: "invalidations",
    header: "Invalidated",
    cell: ({ row }) => <span data-testid="invalidation-count">{row.original.invalidation_count}</span>,
  },
  {
    id: "omitted",
    header: "Omitted",
    cell: ({ row }) => (
      <CountBadge
        count={row.original.omitted_falsified_paths}
        tone="warn"
        title="Falsified paths dropped because they carried no deterministic receipt"
        testId="omitted-count"
      />
    ),
  },
  {
    id: "walls",
    header: "Walls hit",
    cell: ({ row }) => (
      <CountBadge
        count={row.original.finding_count}
        tone="danger"
        title="Lineage findings: paths an ancestor ruled out, or axioms it held, walked into again"
        testId="finding-count"
      />
    ),
  },
  {
    id: "digest",
    header: "Digest",
    cell: ({ row }) => (
      <DigestBadge mismatch={row.original.digest_mismatch} clientDigest={row.original.client_residual_digest} />
    ),
  },
  {
    id: "created",
    header: "Stored",
    cell: ({ row }) => <Stamp iso={row.original.created_at} />,
  },
];

export function TraceTable({ rows, empty }: { rows: TraceSummary[]; empty: React.ReactNode }) {
  return (
    <div className="audit-scroll">
      <DataTable
        label="Distilled traces"
        columns={columns}
        rows={rows}
        rowId={(t) => t.trace_id}
        empty={empty}
        testId="trace-table"
      />
    </div>
  );
}

/** A count that stands out as a badge when above 0, and stays quiet at 0. */
function CountBadge({ count, tone, title, testId }: { count: number; tone: string; title: string; testId: string }) {
  return count > 0 ? (
    <span className={`badge ${tone}`} title={title} data-testid={testId}>
      {count}
    </span>
  ) : (
    <span className="audit-subtle" data-testid={testId}>
      0
    </span>
  );
}
