"use client";
import Link from "next/link";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import type { TraceRejectionWire } from "@/db/queries/traces";
import { formatTime } from "./format";

const columns: ColumnDef<TraceRejectionWire>[] = [
  {
    id: "when",
    header: "When",
    cell: ({ row }) => <time dateTime={row.original.created_at}>{formatTime(row.original.created_at)}</time>,
  },
  {
    id: "trace",
    header: "Trace",
    cell: ({ row }) => <span className="mono">{row.original.trace_id ?? "—"}</span>,
  },
  {
    id: "chain",
    header: "Chain",
    cell: ({ row }) =>
      row.original.chain_id === null ? (
        <span className="audit-subtle">none</span>
      ) : (
        <Link href={`/traces?chain_id=${encodeURIComponent(row.original.chain_id)}`} className="mono">
          {row.original.chain_id}
        </Link>
      ),
  },
  {
    id: "node",
    header: "Unverified node",
    cell: ({ row }) => (
      <span className="mono" title={`node #${row.original.node_index} of the submitted trace`}>
        {row.original.node_id} <span className="audit-subtle">#{row.original.node_index}</span>
      </span>
    ),
  },
];

export function RejectionTable({ rows }: { rows: TraceRejectionWire[] }) {
  return (
    <DataTable
      columns={columns}
      rows={rows}
      rowId={(r) => String(r.id)}
      empty="No submission has been refused: every VERIFIED_CONCLUSION so far came with a receipt."
      testId="rejection-table"
    />
  );
}
