"use client";
import type { ChainSummaryWire } from "@/lib/schemas/chains";
import { DataTable } from "@/components/data-table";
import { chainColumns } from "./chain-columns";

export function ChainsTable({ rows, empty }: { rows: ChainSummaryWire[]; empty?: React.ReactNode }) {
  return (
    <DataTable
      label="Chains"
      testId="chains-table"
      stackOnPhone
      columns={chainColumns}
      rows={rows}
      rowId={(r) => r.chain_id}
      empty={empty ?? "No chains yet."}
    />
  );
}
