"use client";
import Link from "next/link";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import type { TraceSummary } from "@/db/queries/traces";
import { DigestBadge } from "./digest-badge";
import { actionSpaceHref, formatTime, traceHref } from "./format";

const columns: ColumnDef<TraceSummary>[] = [
  {
    id: "trace",
    header: "Trace",
    cell: ({ row }) => (
      <Link href={traceHref(row.original.trace_id)} className="mono audit-nowrap" data-testid="trace-link">
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
        <span className="audit-stack">
          <Link href={`/chains/${encodeURIComponent(row.original.chain_id)}`} className="mono audit-nowrap">
            {row.original.chain_id}
          </Link>
          <Link href={actionSpaceHref(row.original.chain_id)} className="audit-small">
            action space
          </Link>
        </span>
      ),
  },
  {
    id: "axioms",
    header: "Binding axioms",
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
    header: "Invalidated paths",
    cell: ({ row }) => <span data-testid="invalidation-count">{row.original.invalidation_count}</span>,
  },
  {
    id: "omitted",
    header: "Omitted (no receipt)",
    cell: ({ row }) =>
      row.original.omitted_falsified_paths > 0 ? (
        <span className="badge warn" title="Falsified paths dropped because they carried no deterministic receipt">
          {row.original.omitted_falsified_paths} omitted
        </span>
      ) : (
        <span className="audit-subtle">0</span>
      ),
  },
  {
    id: "digest",
    header: "Digest",
    cell: ({ row }) => <DigestBadge mismatch={row.original.digest_mismatch} clientDigest={row.original.client_residual_digest} />,
  },
  {
    id: "created",
    header: "Stored",
    cell: ({ row }) => (
      <time dateTime={row.original.created_at} className="audit-nowrap">
        {formatTime(row.original.created_at)}
      </time>
    ),
  },
];

export function TraceTable({ rows, empty }: { rows: TraceSummary[]; empty: React.ReactNode }) {
  return <DataTable columns={columns} rows={rows} rowId={(t) => t.trace_id} empty={empty} testId="trace-table" />;
}
