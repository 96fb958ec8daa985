import { listRefusedReceipts, type RefusedReceipt } from "@/db/queries/refused-receipts";

/** The chain's refused receipts, latest first: what the API answered 409 or 422 to, and why. */
export async function RefusedSection({ chainId }: { chainId: string }) {
  const refused = await listRefusedReceipts(chainId);
  return <RefusedReceipts {...refused} />;
}

/**
 * A receipt the server refused leaves no pass, only a gap: this says which, when, and the
 * answer the agent got (docs/ingest.md, "Refused receipts").
 */
export function RefusedReceipts({ total, items }: { total: number; items: RefusedReceipt[] }) {
  if (total === 0) return null;
  return (
    <section className="panel" aria-label="Refused receipts" data-testid="refused-receipts">
      <h2>Refused receipts</h2>
      <p className="muted">
        {total === 1 ? "One receipt" : `${total} receipts`} of this chain {total === 1 ? "was" : "were"} refused and
        stored nothing
        {total > items.length ? `; the latest ${items.length} are listed` : ""}. The agent got the same answer.
      </p>
      <ul className="boundary-list refused-list">
        {items.map((r) => (
          <li key={r.id} data-code={r.code}>
            <span className="badge danger">
              {r.status} {r.code}
            </span>{" "}
            {r.pass_id ? <code>{r.pass_id}</code> : "a receipt"}
            {r.pass_number !== null ? ` (pass ${r.pass_number})` : ""} at{" "}
            <time dateTime={r.received_at}>{r.received_at.replace("T", " ").slice(0, 19)} UTC</time>: {r.reason}
            {r.issue ? (
              <>
                {" "}
                <code>{r.issue}</code>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
