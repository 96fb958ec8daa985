import { listChains } from "@/db/queries/chains";
import { ChainsTable } from "@/components/chains/chains-table";

export const dynamic = "force-dynamic";

export default async function Home() {
  const { items } = await listChains({ sort: "last_activity", order: "desc", limit: 100 });
  return (
    <>
      <h1>Chains</h1>
      <p className="subtitle">Every compression chain with its last verdict and where it collapsed.</p>
      <ChainsTable rows={items} empty="No chains yet: post receipts to /api/v1/passes." />
    </>
  );
}
