"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { DataTable } from "@/components/data-table";
import { compactPassColumns, passColumns, type PassTableRow } from "./pass-columns";

/**
 * The chain's passes; choosing a row puts the pass in the URL, which opens its details
 * beside the table. While they are open the table drops the hash columns, which the
 * details show in full.
 */
export function PassesTable({ rows, selectedPassId }: { rows: PassTableRow[]; selectedPassId: string | null }) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  return (
    <DataTable
      label="Passes"
      testId="passes-table"
      columns={selectedPassId ? compactPassColumns : passColumns}
      rows={rows}
      rowId={(r) => r.pass_id}
      selectedId={selectedPassId}
      empty="This chain has no passes yet."
      onRowClick={(row) => {
        const params = new URLSearchParams(searchParams.toString());
        params.set("pass", row.pass_id);
        router.push(`${pathname}?${params.toString()}`, { scroll: false });
      }}
    />
  );
}
