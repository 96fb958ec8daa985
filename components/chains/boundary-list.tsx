import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { chainHref } from "@/lib/routes";
import type { RestoreMatch } from "@/lib/originals/types";
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
  restoreLinks: Record<string, OriginalLinkProps & { match: RestoreMatch }>;
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

/**
 * Only an original with the restored pass's output hash is what the restore brings back; one
 * found otherwise is named for what it is, as its own page names it.
 */
function RestoreLink({ link }: { link: (OriginalLinkProps & { match: RestoreMatch }) | undefined }) {
  if (!link) return null;
  const anchor = (
    <a href={link.href} data-testid="restore-original" data-match={link.match}>
      cached original
    </a>
  );
  if (link.match === "output_hash") return <> from its {anchor}</>;
  if (link.match === "input_hash") return <>; the {anchor} of its input is stored</>;
  return <>; the agent recorded a {anchor} at that pass, not its output</>;
}
