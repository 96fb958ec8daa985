import type { Metadata } from "next";
import { requirePage } from "@/app/_access/page-access";
import { listOperators } from "@/db/queries/access";
import { OperatorsAdmin } from "@/components/access/operators-admin";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Operators" };

export default async function OperatorsPage() {
  await requirePage("/admin/operators");
  const operators = await listOperators();
  return (
    <>
      <h1>Operators</h1>
      <p className="subtitle">
        People who sign in to the dashboard. Viewers see every page; admins also change floors and manage keys and
        operators.
      </p>
      <OperatorsAdmin initial={operators} />
    </>
  );
}
