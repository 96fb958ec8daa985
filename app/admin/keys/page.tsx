import type { Metadata } from "next";
import { requirePage } from "@/app/_access/page-access";
import { listApiKeys, operatorsExist } from "@/db/queries/access";
import { authMode } from "@/lib/auth/access";
import { envRecord } from "@/lib/env";
import { KeysAdmin } from "@/components/access/keys-admin";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  await requirePage("/admin/keys");
  const [keys, operators] = await Promise.all([listApiKeys(), operatorsExist()]);
  return (
    <>
      <h1>API keys</h1>
      <p className="subtitle">
        Agents send a key as <code>Authorization: Bearer &lt;key&gt;</code>. Scopes: <code>ingest</code> (send
        receipts), <code>read</code> (every GET, retrieve, exports, live events), <code>admin</code> (policies, keys,
        operators).
      </p>
      <KeysAdmin initial={keys} noOperator={!operators && authMode(envRecord()) !== "off"} />
    </>
  );
}
