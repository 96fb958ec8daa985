import { getChainSummary } from "@/db/queries/chains";
import { floorPointOf } from "@/lib/chains/outcome";
import { getChainSeries } from "@/db/queries/chain-series";
import { listChainBoundaries } from "@/db/queries/boundaries";
import { replayClass } from "@/db/queries/what-if";
import type { CompressionPolicy } from "@/lib/guard/guard";
import type { PolicyInForce } from "@/lib/guard/policy";
import { chainHref, policiesHref } from "@/lib/routes";
import { MOVEMENTS, summariseWhatIf } from "@/lib/chains/what-if";
import { ChainCharts } from "@/components/chains/chain-charts";
import { WhatIfResults } from "@/components/policies/what-if-results";
import { SaveFloorButton } from "@/components/policies/floor-change";
import type { PreviewFloor } from "@/lib/recommend/wire";

const LISTED_PER_MOVEMENT = 25;

/** The replay's counts and chain lists, and the candidate floor over one chain's curves. */
export async function WhatIfSection({
  contentClass,
  current,
  candidate,
  chain,
  canEdit,
  preview,
}: {
  contentClass: string;
  current: PolicyInForce;
  candidate: CompressionPolicy;
  chain?: string;
  canEdit: boolean;
  preview: PreviewFloor;
}) {
  const replayed = await replayClass(contentClass, current, candidate);
  const result = summariseWhatIf(replayed, LISTED_PER_MOVEMENT);
  const query = { class: contentClass, ...candidate };
  const overlayHref = (chainId: string) => `${policiesHref({ ...query, chain: chainId })}#overlay`;
  // The chain to draw: the one asked for, else the one that moved most.
  const shown = replayed.find((c) => c.chain_id === chain) ?? MOVEMENTS.flatMap((m) => result.chains[m])[0];
  return (
    <>
      <div className="form-actions">
        <SaveFloorButton
          inForce={current}
          proposed={{
            ...candidate,
            required_fields: current.required_fields,
            description: current.description,
            format: current.format,
            decoded_format: current.decoded_format,
          }}
          source="the what-if"
          label="Save this candidate…"
          canEdit={canEdit}
          preview={preview}
          testId="what-if-save"
        />
      </div>
      <WhatIfResults result={result} overlayHref={overlayHref} />
      {shown ? (
        <Overlay
          chainId={shown.chain_id}
          candidate={candidate}
          currentCollapse={shown.current?.pass_number ?? null}
          candidateCollapse={shown.candidate?.pass_number ?? null}
          options={replayed.map((c) => c.chain_id)}
          query={query}
        />
      ) : null}
    </>
  );
}

async function Overlay({
  chainId,
  candidate,
  currentCollapse,
  candidateCollapse,
  options,
  query,
}: {
  chainId: string;
  candidate: CompressionPolicy;
  currentCollapse: number | null;
  candidateCollapse: number | null;
  options: string[];
  query: Record<string, string | number>;
}) {
  const [summary, boundaries] = await Promise.all([getChainSummary(chainId), listChainBoundaries(chainId)]);
  if (!summary) return null;
  const series = await getChainSeries(chainId, boundaries, summary);
  return (
    <section id="overlay" className="overlay" data-testid="what-if-overlay" aria-label="Candidate floor over a chain">
      <form method="get" action="/policies#overlay" className="toolbar">
        {Object.entries(query).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <label>
          Candidate floor over chain{" "}
          <select name="chain" defaultValue={chainId} data-testid="overlay-chain">
            {options.slice(0, 500).map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Show</button>
        <a href={chainHref(chainId)}>open chain</a>
        <span className="muted">
          collapses under the floor in force: {currentCollapse !== null ? `pass ${currentCollapse}` : "never"} · under
          the candidate: {candidateCollapse !== null ? `pass ${candidateCollapse}` : "never"}
        </span>
      </form>
      <ChainCharts
        series={series}
        collapse={summary.collapse_point}
        floorPoint={floorPointOf(summary.statuses)}
        boundaries={boundaries}
        selectedPassId={null}
        candidate={{ ...candidate, collapse_pass_number: candidateCollapse }}
      />
    </section>
  );
}
