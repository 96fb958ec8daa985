"use client";
// A page of a chain's facts ledger (docs/facts.md): each fact with its fate, the pass where it
// was first lost and the one that brought it back (links to those passes on the chain page),
// and the original that states it while the chain does not (a link to the original's page).
import Link from "next/link";
import { useMemo } from "react";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable, WIDE_ONLY } from "@/components/data-table";
import { chainHref, originalHref } from "@/lib/routes";
import type { ChainFact } from "@/lib/schemas/facts";

type FactRow = ChainFact & { rank: number };

const FATE_CLASS: Record<ChainFact["fate"], string> = {
  retained: "badge safe",
  restored: "badge boundary-restore",
  recoverable: "badge warn",
  lost: "badge danger",
};

function PassLink({ chainId, pass }: { chainId: string; pass: number | null }) {
  if (pass === null) return <span className="muted">—</span>;
  return (
    <Link prefetch={false} href={chainHref(chainId, { from: pass })}>
      pass {pass}
    </Link>
  );
}

function columnsOf(chainId: string): ColumnDef<FactRow>[] {
  return [
    {
      id: "fact",
      header: "Fact",
      cell: ({ row }) => (
        <span className="mono" data-testid="fact-text">
          {row.original.fact}
        </span>
      ),
    },
    { id: "kind", header: "Kind", meta: WIDE_ONLY, cell: ({ row }) => row.original.kind.replace("_", " ") },
    {
      id: "salience",
      header: "Salience",
      meta: WIDE_ONLY,
      cell: ({ row }) => <span title={String(row.original.salience)}>{(row.original.salience * 100).toFixed(2)}%</span>,
    },
    {
      id: "fate",
      header: "Fate",
      cell: ({ row }) => (
        <span className={FATE_CLASS[row.original.fate]} data-testid="fact-fate">
          {row.original.fate}
        </span>
      ),
    },
    {
      id: "first_lost",
      header: "First lost",
      cell: ({ row }) => <PassLink chainId={chainId} pass={row.original.first_lost_pass} />,
    },
    {
      id: "restored",
      header: "Brought back",
      cell: ({ row }) => <PassLink chainId={chainId} pass={row.original.restored_at_pass} />,
    },
    {
      id: "original",
      header: "Recoverable from",
      cell: ({ row }) =>
        row.original.recoverable_from === null ? (
          <span className="muted">—</span>
        ) : (
          <Link
            prefetch={false}
            href={originalHref(row.original.recoverable_from)}
            className="mono"
            title="The cached original a marker in the latest pass names"
            data-testid="fact-original"
          >
            {row.original.recoverable_from.slice(0, 12)}…
          </Link>
        ),
    },
  ];
}

export function FactsTable({ chainId, facts }: { chainId: string; facts: FactRow[] }) {
  const columns = useMemo(() => columnsOf(chainId), [chainId]);
  return (
    <DataTable
      columns={columns}
      rows={facts}
      rowId={(f) => String(f.rank)}
      label="Facts"
      testId="facts-table"
      stackOnPhone
      empty={<span data-testid="facts-empty">No fact of this chain matches.</span>}
    />
  );
}
