import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { getOriginalForView, getOriginalText } from "@/db/queries/originals/view";
import { getRecordedPass, listPassesForOriginal } from "@/db/queries/originals/links";
import { type ContentDiff, DIFF_MAX_CHARS, diffContent } from "@/lib/originals/diff";
import type { DetailedMeasurement } from "@/lib/measure/index";
import { MeasureFailure, measureOffThread } from "@/lib/measure/pool";
import { provenanceOf } from "@/lib/originals/provenance";
import { LossSummary } from "@/components/originals/loss-summary";
import { ContentPane } from "@/components/originals/content-pane";
import { CopyButton } from "@/components/ui/copy-button";
import { formatBytes, formatUtc } from "@/lib/format";
import { originalHref } from "@/lib/routes";
import { OriginalFacts, OriginalProvenance } from "@/components/originals/original-facts";
import { OriginalStatusBadge } from "@/components/originals/status-badge";
import { requirePage } from "@/app/_access/page-access";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ hash: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { hash } = await params;
  return { title: `Original ${hash.slice(0, 12)}` };
}

/**
 * Up to this many characters a side, the page measures which facts of the original the
 * compressed text lost (docs/measurement.md); above it, the page would wait on the measurement.
 */
const MEASURE_MAX_CHARS = 256 * 1024;

/**
 * The diff of the two sides, read whole only when both are within the diff's limit, and the
 * facts the compressed text kept, can fetch back (through a marker naming this original) or lost.
 */
async function lossOf(
  hash: string,
  originalChars: number,
  compressedChars: number | null,
): Promise<{ diff: ContentDiff | null; facts: DetailedMeasurement | "too_large" | null }> {
  if (compressedChars === null) return { diff: null, facts: null };
  if (originalChars > DIFF_MAX_CHARS || compressedChars > DIFF_MAX_CHARS)
    return { diff: { kind: "too_large", limit: DIFF_MAX_CHARS }, facts: "too_large" };
  const [a, b] = await Promise.all([
    getOriginalText(hash, "original", null),
    getOriginalText(hash, "compressed", null),
  ]);
  if (!a || !b) return { diff: null, facts: null };
  const measurable = originalChars <= MEASURE_MAX_CHARS && compressedChars <= MEASURE_MAX_CHARS;
  return {
    diff: diffContent(a.text, b.text),
    facts: measurable ? await measureLoss(hash, a.text, b.text) : "too_large",
  };
}

/** The compressed text measured against the original, off the request thread; past its budget, too large. */
async function measureLoss(hash: string, original: string, compressed: string) {
  try {
    // A marker in the compressed text naming this original makes what it states recoverable.
    const { measurement } = await measureOffThread({
      content: compressed,
      source: original,
      prefixOf: { hash, text: original },
    });
    return measurement;
  } catch (error) {
    if (error instanceof MeasureFailure) return "too_large" as const;
    throw error;
  }
}

export default async function OriginalPage({ params }: Props) {
  await requirePage("/originals/{hash}", await params);
  const { hash } = await params;
  const lookup = await getOriginalForView(hash);
  if (lookup.kind === "unknown") notFound();
  if (lookup.kind === "ambiguous") {
    return (
      <>
        <h1>Ambiguous key</h1>
        <p className="subtitle">
          <code>{hash}</code> is the start of {lookup.candidates.length} stored hashes; agents sending it get 409. Pick
          one:
        </p>
        <ul className="ccr-list" data-testid="ambiguous-candidates">
          {lookup.candidates.map((c) => (
            <li key={c.hash}>
              <a href={originalHref(c.hash)} className="mono">
                {c.hash}
              </a>{" "}
              <OriginalStatusBadge status={c.status} />
            </li>
          ))}
        </ul>
      </>
    );
  }
  const original = lookup.original;
  // A prefix opens the entry under its full key, so the address bar is always the shareable link.
  if (original.hash !== hash) redirect(originalHref(original.hash));
  const live = original.status === "live";
  const [passes, recorded, loss] = await Promise.all([
    listPassesForOriginal(original.hash),
    original.chain_id && original.pass_id ? getRecordedPass(original.chain_id, original.pass_id) : null,
    live ? lossOf(original.hash, original.original_chars ?? 0, original.compressed_chars) : null,
  ]);
  const provenance = provenanceOf(original.hash, original.chain_id, original.pass_id, recorded, passes);

  return (
    <>
      <h1>
        Original <OriginalStatusBadge status={original.status} />
      </h1>
      <p className="subtitle full-hash">
        <code data-testid="original-hash">{original.hash}</code> <CopyButton value={original.hash} label="Copy hash" />
      </p>
      {live ? null : (
        <section className="panel tombstone" role="status" data-testid="tombstone">
          <strong>
            {original.status === "evicted" ? "Evicted" : "Expired"} at {formatUtc(original.gone_at)}.
          </strong>{" "}
          {original.gone_reason} Only this tombstone remains ({formatBytes(original.size_bytes)} were stored): agents
          asking for this hash get <code>410 {original.status}</code> and are told that retrying will not help.
        </section>
      )}
      <div className="grid-2 original-facts">
        <OriginalFacts original={original} />
        <OriginalProvenance provenance={provenance} />
      </div>
      {live ? (
        <LossSummary diff={loss?.diff ?? null} facts={loss?.facts ?? null} measureLimit={MEASURE_MAX_CHARS} />
      ) : null}
      {live ? (
        <div className="side-by-side" data-testid="side-by-side">
          <ContentPane
            hash={original.hash}
            part="original"
            title={`Original (${formatBytes(original.size_bytes)})`}
            totalChars={original.original_chars ?? 0}
            contentType={original.content_type}
          />
          {original.compressed_chars !== null ? (
            <ContentPane
              hash={original.hash}
              part="compressed"
              title={`Compressed (${formatBytes(original.compressed_size_bytes)})`}
              totalChars={original.compressed_chars}
              contentType={original.content_type}
            />
          ) : (
            <section className="panel content-pane" data-testid="pane-compressed">
              <h2>Compressed</h2>
              <p className="muted">No compressed text was stored with this original.</p>
            </section>
          )}
        </div>
      ) : null}
    </>
  );
}
