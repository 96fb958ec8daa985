"use client";
import Link from "next/link";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import type { TraceRejectionWire } from "@/lib/traces/types";
import { Stamp } from "./stamp";

// Two stacked columns so the list fits beside the trace table.
const columns: ColumnDef<TraceRejectionWire>[] = [
  {
    id: "submission",
    header: "Refused trace",
    cell: ({ row }) => (
      <span className="audit-stack">
        <span className="mono" data-testid="rejected-trace">
          {row.original.trace_id ?? "—"}
        </span>
        {row.original.chain_id === null ? (
          <span className="audit-subtle audit-small">no chain</span>
        ) : (
          <Link
            prefetch={false}
            href={`/traces?chain_id=${encodeURIComponent(row.original.chain_id)}`}
            className="mono audit-small"
          >
            {row.original.chain_id}
          </Link>
        )}
      </span>
    ),
  },
  {
    id: "node",
    header: "Unverified node",
    cell: ({ row }) => (
      <span
        className="mono"
        title={`node #${row.original.node_index} of the submitted trace`}
        data-testid="rejected-node"
      >
        {row.original.node_id} <span className="audit-subtle">#{row.original.node_index}</span>
      </span>
    ),
  },
  { id: "when", header: "When", cell: ({ row }) => <Stamp iso={row.original.created_at} /> },
];

export function RejectionTable({ rows }: { rows: TraceRejectionWire[] }) {
  return (
    <div className="audit-scroll">
      <DataTable
        label="Refused submissions"
        columns={columns}
        rows={rows}
        rowId={(r) => String(r.id)}
        empty="No submission has been refused: every VERIFIED_CONCLUSION so far came with a receipt."
        testId="rejection-table"
      />
    </div>
  );
}
