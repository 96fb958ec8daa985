import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { chainHref } from "@/lib/routes";
import type { OriginalLinkProps } from "./original-links";

const LABEL: Record<BoundaryWire["strategy"], string> = {
  halt: "Halt",
  restore: "Restore",
  accept_loss: "Accept loss",
};

/** The boundary receipts of a chain with their reasons, each linking to its pass on the page. */
export function BoundaryList({
  chainId,
  boundaries,
  restoreLinks,
}: {
  chainId: string;
  boundaries: BoundaryWire[];
  /** Per restored pass id, the cached original of that pass's output. */
  restoreLinks: Record<string, OriginalLinkProps>;
}) {
  if (boundaries.length === 0) return null;
  return (
    <section className="panel" aria-label="Boundary receipts">
      <h2>Boundary receipts</h2>
      <ul className="boundary-list" data-testid="boundary-list">
        {boundaries.map((b) => (
          <li key={b.pass_number} data-strategy={b.strategy}>
            <span className={`badge boundary-${b.strategy}`}>⚑ {LABEL[b.strategy]}</span>{" "}
            <a href={chainHref(chainId, { from: b.pass_number })}>pass {b.pass_number}</a>: {b.reason}
            {b.restore_pass_id ? (
              <>
                {" "}
                (restores <code>{b.restore_pass_id}</code>
                <RestoreLink link={restoreLinks[b.restore_pass_id]} />)
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

function RestoreLink({ link }: { link: OriginalLinkProps | undefined }) {
  if (!link) return null;
  return (
    <>
      {" "}
      from its <a href={link.href}>cached original</a>
    </>
  );
}
