"use client";
import Link from "next/link";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import { formatBytes } from "@/lib/format";
import { chainHref, tracesHref } from "@/lib/routes";
import type { TraceRejectionWire } from "@/lib/schemas/traces";
import { REJECTED_CONTENT_MAX_BYTES } from "@/lib/traces/types";
import { Stamp } from "@/components/ui/stamp";

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
          <span className="audit-small">
            chain{" "}
            <Link
              prefetch={false}
              href={chainHref(row.original.chain_id)}
              className="mono"
              data-testid="rejected-chain"
            >
              {row.original.chain_id}
            </Link>{" "}
            ·{" "}
            <Link prefetch={false} href={tracesHref({ chain_id: row.original.chain_id })} className="audit-subtle">
              its traces
            </Link>
          </span>
        )}
      </span>
    ),
  },
  {
    id: "node",
    header: "Unverified node",
    cell: ({ row }) => (
      <span className="audit-stack">
        <span
          className="mono"
          title={`node #${row.original.node_index} of the submitted trace`}
          data-testid="rejected-node"
        >
          {row.original.node_id} <span className="audit-subtle">#{row.original.node_index}</span>
        </span>
        <RefusedNode rejection={row.original} />
      </span>
    ),
  },
  { id: "when", header: "When", cell: ({ row }) => <Stamp iso={row.original.created_at} /> },
];

/** The refused node as sent and why it was refused, folded so the list stays short. */
function RefusedNode({ rejection: r }: { rejection: TraceRejectionWire }) {
  if (r.content === null && r.reason === null) {
    return <span className="audit-subtle audit-small"> (refused before content was kept)</span>;
  }
  return (
    <details className="refused-node" data-testid="refused-node">
      <summary>{r.node_type ?? "node"}: content and reason</summary>
      {r.reason ? (
        <p className="audit-small" data-testid="refused-reason">
          {r.reason}
        </p>
      ) : null}
      <pre className="refused-content" data-testid="refused-content">
        {r.content}
      </pre>
      {r.content_truncated ? (
        <p className="audit-subtle audit-small" data-testid="refused-truncated">
          First {formatBytes(REJECTED_CONTENT_MAX_BYTES)} of {formatBytes(r.content_bytes)} kept.
        </p>
      ) : null}
    </details>
  );
}

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
