import type { BoundaryWire } from "@/db/queries/boundaries";
import { hrefWith } from "@/lib/schemas/search-params";

const LABEL: Record<BoundaryWire["strategy"], string> = { halt: "Halt", restore: "Restore", accept_loss: "Accept loss" };

/** The boundary receipts of a chain with their reasons, each linking to its pass on the page. */
export function BoundaryList({ chainId, boundaries }: { chainId: string; boundaries: BoundaryWire[] }) {
  if (boundaries.length === 0) return null;
  const path = `/chains/${encodeURIComponent(chainId)}`;
  return (
    <section className="panel" aria-label="Boundary receipts">
      <h2>Boundary receipts</h2>
      <ul className="boundary-list" data-testid="boundary-list">
        {boundaries.map((b) => (
          <li key={b.pass_number} data-strategy={b.strategy}>
            <span className={`badge boundary-${b.strategy}`}>⚑ {LABEL[b.strategy]}</span>{" "}
            <a href={hrefWith(path, { from: b.pass_number })}>pass {b.pass_number}</a>: {b.reason}
            {b.restore_pass_id ? (
              <>
                {" "}
                (restores <code>{b.restore_pass_id}</code>)
              </>
            ) : null}
            {b.relaxed_policy ? (
              <>
                {" "}
                relaxed floor <code>{JSON.stringify(b.relaxed_policy)}</code>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
