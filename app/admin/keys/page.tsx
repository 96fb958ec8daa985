import type { Metadata } from "next";
import { requirePage } from "@/app/_access/page-access";
import { listApiKeys } from "@/db/queries/access";
import { KeysAdmin } from "@/components/access/keys-admin";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  await requirePage("/admin/keys");
  const keys = await listApiKeys();
  return (
    <>
      <h1>API keys</h1>
      <p className="subtitle">
        Agents send a key as <code>Authorization: Bearer &lt;key&gt;</code>. Scopes: <code>ingest</code> (send
        receipts), <code>read</code> (every GET, retrieve, exports, live events), <code>admin</code> (policies, keys,
        operators). The first key turns access control on: create an operator first if you use the dashboard.
      </p>
      <KeysAdmin initial={keys} />
    </>
  );
}
