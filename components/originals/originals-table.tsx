"use client";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import type { OriginalSummaryWire } from "@/lib/schemas/originals";
import type { OriginalSort } from "@/lib/schemas/originals";
import { formatBytes, formatCount, formatUtc } from "@/lib/format";
import { chainHref, originalHref } from "@/lib/routes";
import { OriginalStatusBadge } from "./status-badge";

export interface SortState {
  sort: OriginalSort;
  order: "asc" | "desc";
  /** The current filters as a query string without sort, order or cursor. */
  base: string;
}

function SortHeader({ label, column, state }: { label: string; column: OriginalSort; state: SortState }) {
  const active = state.sort === column;
  const next = active && state.order === "desc" ? "asc" : "desc";
  const params = new URLSearchParams(state.base);
  params.set("sort", column);
  params.set("order", next);
  return (
    <a href={`?${params}`} data-testid={`sort-${column}`}>
      {label}
      {active ? (state.order === "asc" ? " ▲" : " ▼") : ""}
    </a>
  );
}

function ariaSort(state: SortState, column: OriginalSort): "ascending" | "descending" | undefined {
  if (state.sort !== column) return undefined;
  return state.order === "asc" ? "ascending" : "descending";
}

function columns(state: SortState): ColumnDef<OriginalSummaryWire, unknown>[] {
  return [
    {
      id: "hash",
      header: "Hash",
      cell: ({ row }) => (
        <a
          href={originalHref(row.original.hash)}
          className="mono"
          title={row.original.hash}
          data-testid="original-link"
        >
          {row.original.hash.slice(0, 16)}…
        </a>
      ),
    },
    {
      id: "size",
      meta: { sort: ariaSort(state, "size") },
      header: () => <SortHeader label="Size" column="size" state={state} />,
      cell: ({ row }) => (
        <span title={`${row.original.size_bytes} bytes`}>
          {formatBytes(row.original.size_bytes)}
          {row.original.compressed_size_bytes !== null ? (
            <span className="muted"> → {formatBytes(row.original.compressed_size_bytes)}</span>
          ) : null}
        </span>
      ),
    },
    { id: "type", header: "Type", cell: ({ row }) => row.original.content_type ?? <span className="muted">—</span> },
    { id: "tool", header: "Tool", cell: ({ row }) => row.original.tool_name ?? <span className="muted">—</span> },
    {
      id: "chain",
      header: "Chain / pass",
      cell: ({ row }) =>
        row.original.chain_id ? (
          <a href={chainHref(row.original.chain_id, { pass: row.original.pass_id })}>
            {row.original.chain_id}
            {row.original.pass_id ? <span className="muted"> / {row.original.pass_id}</span> : null}
          </a>
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      id: "created",
      meta: { sort: ariaSort(state, "created") },
      header: () => <SortHeader label="Created" column="created" state={state} />,
      cell: ({ row }) => <span className="mono">{formatUtc(row.original.created_at)}</span>,
    },
    {
      id: "last_retrieved",
      meta: { sort: ariaSort(state, "last_retrieved") },
      header: () => <SortHeader label="Last retrieved" column="last_retrieved" state={state} />,
      cell: ({ row }) => (
        <span className="mono">
          {row.original.last_retrieved_at ? formatUtc(row.original.last_retrieved_at) : "never"}
        </span>
      ),
    },
    {
      id: "retrievals",
      meta: { sort: ariaSort(state, "retrievals") },
      header: () => <SortHeader label="Retrievals" column="retrievals" state={state} />,
      cell: ({ row }) => formatCount(row.original.retrieval_count),
    },
    {
      id: "status",
      header: "Status",
      cell: ({ row }) => (
        <span title={row.original.gone_reason ?? undefined}>
          <OriginalStatusBadge status={row.original.status} />
        </span>
      ),
    },
  ];
}

export function OriginalsTable({ rows, sort }: { rows: OriginalSummaryWire[]; sort: SortState }) {
  return (
    <DataTable
      label="Cached originals"
      columns={columns(sort)}
      rows={rows}
      rowId={(r) => r.hash}
      testId="originals-table"
      empty="No originals match. Agents store them with POST /api/v1/originals."
    />
  );
}
