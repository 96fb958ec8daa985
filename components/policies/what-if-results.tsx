import { MOVEMENT_LABEL, MOVEMENTS, type Movement, type WhatIfResult } from "@/lib/chains/what-if";
import { formatCount } from "@/lib/format";
import { chainHref } from "@/lib/routes";
import { ScrollBox } from "@/components/ui/scroll-box";

const TONE: Record<Movement, string> = {
  newly_collapsing: "danger",
  earlier: "warn",
  later: "safe",
  no_longer_collapsing: "safe",
  unchanged_collapsed: "neutral",
  unchanged_healthy: "neutral",
};

const HINT: Record<Movement, string> = {
  newly_collapsing: "healthy under the floor in force, collapse under the candidate",
  earlier: "the candidate stops them at an earlier pass",
  later: "the candidate lets them run longer",
  no_longer_collapsing: "collapse under the floor in force, healthy under the candidate",
  unchanged_collapsed: "",
  unchanged_healthy: "",
};

function passText(point: { pass_number: number } | null): string {
  return point ? `pass ${point.pass_number}` : "never";
}

/** Counts per movement and, for each, the chains that moved most, linking to the chain and to its overlay here. */
export function WhatIfResults({
  result,
  overlayHref,
}: {
  result: WhatIfResult;
  overlayHref: (chainId: string) => string;
}) {
  if (result.total === 0) return <p className="empty">No recorded chains of this class to replay.</p>;
  return (
    <div className="what-if-results" data-testid="what-if-results">
      <div className="figures compact">
        {MOVEMENTS.map((m) => (
          <div key={m} className={`figure movement ${TONE[m]}`} data-testid={`what-if-count-${m}`}>
            <div className="value">{formatCount(result.counts[m])}</div>
            <div className="label">{MOVEMENT_LABEL[m]}</div>
            {HINT[m] ? <div className="hint">{HINT[m]}</div> : null}
          </div>
        ))}
      </div>
      {MOVEMENTS.filter(
        (m) => m !== "unchanged_healthy" && m !== "unchanged_collapsed" && result.chains[m].length > 0,
      ).map((m) => (
        <section key={m} className="movement-list" data-testid={`what-if-list-${m}`}>
          <h3>
            {MOVEMENT_LABEL[m]} <span className="muted">({formatCount(result.counts[m])})</span>
          </h3>
          <ScrollBox label={`${MOVEMENT_LABEL[m]} chains`}>
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">Chain</th>
                  <th scope="col">Collapses under the floor in force</th>
                  <th scope="col">Under the candidate</th>
                  <th scope="col" />
                </tr>
              </thead>
              <tbody>
                {result.chains[m].map((c) => (
                  <tr key={c.chain_id} data-chain-id={c.chain_id}>
                    <td>
                      <a href={chainHref(c.chain_id)}>{c.chain_id}</a>
                    </td>
                    <td>{passText(c.current)}</td>
                    <td>
                      {passText(c.candidate)}
                      {c.candidate ? <div className="directive muted">{c.candidate.directive}</div> : null}
                    </td>
                    <td>
                      <a href={overlayHref(c.chain_id)}>show on chart</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
          {result.counts[m] > result.chains[m].length ? (
            <p className="muted">
              and {formatCount(result.counts[m] - result.chains[m].length)} more (the biggest moves are listed).
            </p>
          ) : null}
        </section>
      ))}
    </div>
  );
}
