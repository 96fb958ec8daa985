import Link from "next/link";
import type { IntegrityFinding } from "@/lib/chains/integrity";
import { formatKind } from "@/lib/format";
import { chainHref, originalHref } from "@/lib/routes";

/** What each kind means in a few words, for the badge's title (docs/markers.md says it in full). */
const MEANING: Record<string, string> = {
  marker_unknown: "The marker names no original this store holds",
  marker_expired: "The marker's original expired or was evicted while the chain still pointed at it",
  marker_nested: "The marker's original is itself compressed content with a marker",
  retrieve_recompressed: "A retrieved original was compressed again",
  marker_without_tool: "Markers went to a context that had no retrieve tool",
};

/**
 * A chain's marker findings (docs/markers.md): CCR markers that lead nowhere, each on its pass
 * (linked to the pass's detail) and with its hash (linked to the original where it was stored).
 */
export function MarkerFindings({
  chainId,
  findings,
  total,
}: {
  chainId: string;
  findings: IntegrityFinding[];
  total: number;
}) {
  if (findings.length === 0) return null;
  return (
    <section className="panel" aria-label="Marker findings" data-testid="marker-findings">
      <h2>Marker findings</h2>
      <p className="muted">
        {total === 1 ? "One finding" : `${total} findings`}: compression markers of this chain that lead nowhere an
        agent can follow{total > findings.length ? `; the first ${findings.length} are listed` : ""} (docs/markers.md).
      </p>
      <ul className="boundary-list marker-findings">
        {findings.map((f) => (
          <li key={`${f.pass_id}:${f.kind}:${f.hash}`} data-kind={f.kind}>
            <span className="badge warn" title={MEANING[f.kind]}>
              {formatKind(f.kind)}
            </span>{" "}
            <Link href={chainHref(chainId, { pass: f.pass_id })}>pass {f.pass_number}</Link>
            {f.hash ? (
              <>
                {" "}
                <Link href={originalHref(f.hash)} className="mono">
                  {f.hash.length > 16 ? `${f.hash.slice(0, 16)}…` : f.hash}
                </Link>
              </>
            ) : null}
            <span className="marker-finding-detail">: {f.detail}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
