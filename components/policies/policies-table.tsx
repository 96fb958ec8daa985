"use client";
import { DataTable } from "@/components/data-table";
import { policyColumns, type PolicyRow } from "./policy-columns";

export function PoliciesTable({ rows, selected }: { rows: PolicyRow[]; selected: string | null }) {
  return (
    <DataTable
      label="Policies"
      testId="policies-table"
      columns={policyColumns}
      rows={rows}
      rowId={(r) => r.content_class}
      selectedId={selected}
      empty="No content classes yet: they appear when a policy is saved or a receipt names one."
    />
  );
}
