"use client";
import Link from "next/link";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import type { AxiomEntry, Establishment, ForbiddenEntry } from "@/lib/traces/action-space";
import { formatUtc } from "@/lib/format";
import { traceHref } from "@/lib/routes";

function Sources({ list, verb }: { list: Establishment[]; verb: string }) {
  return (
    <ul className="audit-sources">
      {list.map((e) => (
        <li key={`${e.trace_id}\u0000${e.receipt}`}>
          <code className="audit-pre">{e.receipt || "(empty receipt)"}</code>{" "}
          <span className="audit-subtle">{verb}</span>{" "}
          <Link prefetch={false} href={traceHref(e.trace_id)} className="mono" data-testid="source-trace">
            {e.trace_id}
          </Link>{" "}
          <time className="audit-subtle audit-small" dateTime={e.created_at}>
            {formatUtc(e.created_at)}
          </time>
        </li>
      ))}
    </ul>
  );
}

function ConflictMark({ count }: { count: number }) {
  if (count === 0) return <span className="audit-subtle">consistent</span>;
  return (
    <span className="badge danger audit-conflict-mark" data-testid="conflict-mark">
      conflict
    </span>
  );
}

const axiomColumns: ColumnDef<AxiomEntry>[] = [
  {
    id: "axiom",
    header: "Binding axiom",
    cell: ({ row }) => <span className="audit-pre audit-constraint">{row.original.axiom}</span>,
  },
  {
    id: "sources",
    header: "Proof receipts",
    cell: ({ row }) => <Sources list={row.original.established_by} verb="in" />,
  },
  { id: "status", header: "Status", cell: ({ row }) => <ConflictMark count={row.original.conflicts_with.length} /> },
];

const forbiddenColumns: ColumnDef<ForbiddenEntry>[] = [
  {
    id: "path",
    header: "Forbidden path",
    cell: ({ row }) => <span className="audit-pre audit-constraint audit-forbidden">{row.original.path}</span>,
  },
  {
    id: "sources",
    header: "Ruled out by",
    cell: ({ row }) => <Sources list={row.original.established_by} verb="in" />,
  },
  { id: "status", header: "Status", cell: ({ row }) => <ConflictMark count={row.original.conflicts_with.length} /> },
];

export function AxiomTable({ rows }: { rows: AxiomEntry[] }) {
  return (
    <DataTable
      label="Admissible axioms"
      columns={axiomColumns}
      rows={rows}
      rowId={(a) => a.key}
      empty="No trace of this chain verified a conclusion."
      testId="axiom-table"
    />
  );
}

export function ForbiddenTable({ rows }: { rows: ForbiddenEntry[] }) {
  return (
    <DataTable
      label="Forbidden paths"
      columns={forbiddenColumns}
      rows={rows}
      rowId={(f) => f.key}
      empty="No trace of this chain ruled out a path with a receipt."
      testId="forbidden-table"
    />
  );
}
