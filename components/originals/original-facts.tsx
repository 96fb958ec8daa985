import type { OriginalSummaryWire } from "@/lib/schemas/originals";
import type { Provenance, SourceCheck } from "@/lib/originals/provenance";
import { CopyButton } from "@/components/ui/copy-button";
import { formatBytes, formatCount, formatUtc } from "@/lib/format";
import { chainHref } from "@/lib/routes";

type Original = OriginalSummaryWire & { marker: string };

function arrow(
  before: number | null,
  after: number | null,
  format: (n: number | null) => string = formatCount,
): string {
  if (before === null && after === null) return "not sent by the client";
  return `${format(before)} → ${format(after)}`;
}

/** What is stored and what it is worth: sizes, counts, tokens, TTL, retrievals, marker. */
export function OriginalFacts({ original: o }: { original: Original }) {
  const ratio = o.compressed_size_bytes !== null && o.size_bytes > 0 ? o.compressed_size_bytes / o.size_bytes : null;
  return (
    <section className="panel" aria-label="Entry">
      <h2>Entry</h2>
      <dl className="ccr-facts" data-testid="original-facts">
        <dt>Size</dt>
        <dd>
          {arrow(o.size_bytes, o.compressed_size_bytes, formatBytes)}
          {ratio !== null ? (
            <span className="muted"> ({ratio < 0.001 ? "under 0.1" : (ratio * 100).toFixed(1)}% of the original)</span>
          ) : null}
        </dd>
        {o.tenant ? (
          <>
            <dt>Tenant</dt>
            <dd data-testid="original-tenant">{o.tenant}</dd>
          </>
        ) : null}
        <dt>Content type</dt>
        <dd>{o.content_type ?? "—"}</dd>
        <dt>Tool</dt>
        <dd>{o.tool_name ?? "—"}</dd>
        <dt>Items</dt>
        <dd>{arrow(o.original_items, o.compressed_items)}</dd>
        <dt>Tokens</dt>
        <dd>
          {arrow(o.original_tokens, o.compressed_tokens)}
          <div className="muted">
            {o.tokens_saved === null
              ? "saving unknown (no compressed side)"
              : `${formatCount(o.tokens_saved)} saved by compressing`}
            ; each retrieval re-spends {formatCount(o.retrieval_tokens)}
            {o.tokens_estimated ? " (estimated from bytes, about 4 per token)" : ""}
          </div>
        </dd>
        <dt>Stored</dt>
        <dd>
          {formatUtc(o.created_at)}
          {o.store_count > 1 ? <span className="muted"> (stored {o.store_count} times; deduplicated)</span> : null}
        </dd>
        <dt>Expires</dt>
        <dd>{o.expires_at ? `${formatUtc(o.expires_at)} (TTL ${o.ttl_seconds} s)` : "never: no TTL"}</dd>
        <dt>Retrievals</dt>
        <dd data-testid="retrieval-count">
          {formatCount(o.retrieval_count)}
          <span className="muted">, last {o.last_retrieved_at ? formatUtc(o.last_retrieved_at) : "never"}</span>
        </dd>
        <dt>Marker</dt>
        <dd>
          <code data-testid="marker">{o.marker}</code> <CopyButton value={o.marker} label="Copy marker" />
        </dd>
      </dl>
      <p className="muted ccr-note">
        Viewing this page is not a retrieval: it is not counted and does not keep the entry from eviction.
      </p>
    </section>
  );
}

/**
 * Where the original came from: the source the agent recorded, checked against that pass's
 * receipt, then every other pass whose receipt names this hash. One account, never two
 * statements that contradict each other.
 */
export function OriginalProvenance({ provenance }: { provenance: Provenance }) {
  const { source, others } = provenance;
  return (
    <section className="panel" aria-label="Provenance">
      <h2>Provenance</h2>
      <dl className="ccr-facts">
        <dt>Recorded source</dt>
        <dd data-testid="provenance-source" data-check={source.kind}>
          <SourceText source={source} />
        </dd>
      </dl>
      <h3 className="ccr-subheading">
        {source.kind === "confirmed" ? "Other passes with this hash" : "Passes with this hash"}
      </h3>
      {others.length === 0 ? (
        <p className="muted" data-testid="no-matching-passes">
          {source.kind === "confirmed"
            ? "No other pass receipt names this hash."
            : "No pass receipt names this hash (the SHA-256 of the original) as its input or output."}
        </p>
      ) : (
        <ul className="ccr-list" data-testid="matching-passes">
          {others.map((p) => (
            <li key={`${p.chain_id}/${p.pass_id}/${p.relation}`}>
              <a href={chainHref(p.chain_id, { pass: p.pass_id })}>
                {p.chain_id} · pass {p.pass_number}
              </a>{" "}
              <span className="muted">
                ({p.pass_id}) {p.relation === "input" ? "compressed this original" : "produced this content"}
              </span>{" "}
              <span className="badge neutral">{p.verdict}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function PassLink({ chainId, passId, text }: { chainId: string; passId: string; text: string }) {
  return (
    <a href={chainHref(chainId, { pass: passId })} data-testid="source-chain-link">
      {text}
    </a>
  );
}

function SourceText({ source }: { source: SourceCheck }) {
  switch (source.kind) {
    case "none":
      return <span className="muted">none: the agent stored it without a chain or pass</span>;
    case "chain_only":
      return (
        <>
          <a href={chainHref(source.chain_id)} data-testid="source-chain-link">
            chain {source.chain_id}
          </a>{" "}
          <span className="muted">(no pass recorded)</span>
        </>
      );
    case "pass_not_received":
      return (
        <>
          <PassLink
            chainId={source.chain_id}
            passId={source.pass_id}
            text={`chain ${source.chain_id}, pass ${source.pass_id}`}
          />
          <div className="muted">No receipt for that pass has arrived, so nothing confirms it yet.</div>
        </>
      );
    case "confirmed":
      return (
        <>
          <PassLink
            chainId={source.pass.chain_id}
            passId={source.pass.pass_id}
            text={`chain ${source.pass.chain_id}, pass ${source.pass.pass_number} (${source.pass.pass_id})`}
          />
          <div className="muted">
            Confirmed: that pass&rsquo;s receipt names this hash as its{" "}
            {source.relation === "input" ? "input (it compressed this original)" : "output"}.
          </div>
        </>
      );
    case "hashes_differ":
      return (
        <>
          <PassLink
            chainId={source.pass.chain_id}
            passId={source.pass.pass_id}
            text={`chain ${source.pass.chain_id}, pass ${source.pass.pass_number} (${source.pass.pass_id})`}
          />
          <div className="muted" data-testid="provenance-hashes-differ">
            As the agent recorded it. That pass&rsquo;s receipt names input{" "}
            <code>{shortHash(source.pass.input_content_hash)}</code> and output{" "}
            <code>{shortHash(source.pass.current_content_hash)}</code>, not this original&rsquo;s SHA-256: the agent
            hashes content its own way, or stored a different text.
          </div>
        </>
      );
  }
}

function shortHash(hash: string | null): string {
  if (hash === null) return "none";
  return hash.length > 16 ? `${hash.slice(0, 12)}…` : hash;
}
