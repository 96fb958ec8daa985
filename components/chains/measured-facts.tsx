import type { PassDetail } from "@/lib/chains/types";
import { VerdictBadge } from "@/components/ui/verdict-badge";

/** What each component of a measured density says (docs/measurement.md, "Density"). */
const COMPONENT_HELP: Record<string, string> = {
  coverage: "the weight of the source's facts this pass states (a recoverable one at half)",
  efficiency: "the share of the pass that is not repeats or filler",
  specificity: "the share of the pass that is specific (no source to compare with)",
  salience: "the share of what the source's error and warning entries state that this pass keeps",
  words:
    "what each of the source's words counted for: its phrases against the source's, or across languages the share of its other facts kept",
  values:
    "what each of the source's values counted for: how many of this pass's values share a sentence with a word or a name, against the source's",
  order: "how far this pass keeps the source's words next to each other beyond chance",
};

/**
 * What the server measured in a pass's content (docs/measurement.md): the measured density
 * beside the claimed one and the floor, the facts of the chain's source the pass kept, can get
 * back from a cached original, or lost, with their text.
 */
export function MeasuredFacts({ pass }: { pass: PassDetail }) {
  const checks = pass.server_checks;
  const measured = checks?.semantic_density_score;
  if (measured === undefined || !checks) {
    if (!pass.unmeasured) return null;
    return (
      <section aria-labelledby="measured-heading" className="measured-facts" data-testid="measured-facts">
        <h3 id="measured-heading">Measured density</h3>
        <p className="muted" data-testid="unmeasured">
          Not measured: the server had no content for this pass (none in the receipt, and no cached original with its
          output hash) or no source for its chain. Its class follows measured density, so this pass counts on its
          claims.
        </p>
      </section>
    );
  }
  const floor = pass.policy.min_semantic_density;
  const facts = checks.facts ?? null;
  const lost = checks.lost_examples ?? [];
  const components = Object.entries(checks.components ?? {});
  // Grouped by the original that states them: a marker usually names one original for many facts.
  const byOriginal = [
    ...(checks.recoverable_examples ?? []).reduce((groups, { fact, hash }) => {
      groups.set(hash, [...(groups.get(hash) ?? []), fact]);
      return groups;
    }, new Map<string, string[]>()),
  ];
  return (
    <section aria-labelledby="measured-heading" className="measured-facts" data-testid="measured-facts">
      <h3 id="measured-heading">What this pass kept and lost</h3>
      <p data-testid="measured-density">
        Density claimed <strong>{pass.semantic_density_score.toFixed(3)}</strong>, measured{" "}
        <strong className="measured-text">{measured.toFixed(3)}</strong>, floor {floor}.
        {measured < floor && pass.semantic_density_score >= floor ? (
          <strong className="danger-text"> Under the floor, though the claim is above it.</strong>
        ) : null}
      </p>
      <p className="small" data-testid="measured-components">
        {checks.method === undefined ? (
          <span className="muted">Measured before floorline-facts/4, which keeps no components.</span>
        ) : components.length === 0 ? (
          <span className="muted">The content cannot be read: nothing to measure ({checks.method}).</span>
        ) : (
          <>
            {components.map(([name, value], i) => (
              <span key={name} title={COMPONENT_HELP[name] ?? name}>
                {i > 0 ? " × " : ""}
                {name} <strong>{value.toFixed(3)}</strong>
              </span>
            ))}{" "}
            <span className="muted">({checks.method})</span>
          </>
        )}
      </p>
      {pass.measurement_mismatch ? (
        <p className="measured-warning" data-testid="measurement-mismatch">
          <span className="badge measurement">measurement mismatch</span> On its claims the guard says{" "}
          <VerdictBadge verdict={pass.verdict} />; measured, it says{" "}
          {pass.checked_verdict ? <VerdictBadge verdict={pass.checked_verdict} /> : "otherwise"}.
        </p>
      ) : null}
      {pass.effective_verdict !== pass.verdict ? (
        <p data-testid="effective-verdict">
          This class follows measured density: the chain counts this pass as{" "}
          <VerdictBadge verdict={pass.effective_verdict} />.
        </p>
      ) : null}
      {facts ? (
        <p data-testid="fact-counts">
          Of the {facts.in_source} facts in the chain&apos;s source, this pass states <strong>{facts.retained}</strong>,{" "}
          <strong>{facts.recoverable}</strong> can be fetched back from a cached original, and{" "}
          <strong className={facts.lost > 0 ? "danger-text" : undefined}>{facts.lost}</strong> are lost.
        </p>
      ) : (
        <p className="muted">No facts to count: the chain&apos;s source states nothing specific.</p>
      )}
      {lost.length > 0 ? (
        <>
          <h4>Lost</h4>
          <ul className="fact-list lost" data-testid="lost-facts">
            {lost.map((fact) => (
              <li key={fact}>
                <code>{fact}</code>
              </li>
            ))}
          </ul>
          {facts && facts.lost > lost.length ? (
            <p className="muted small">
              The {lost.length} weightiest of {facts.lost} shown.
            </p>
          ) : null}
        </>
      ) : null}
      {byOriginal.length > 0 ? (
        <div data-testid="recoverable-facts">
          <h4>Recoverable from a cached original</h4>
          {byOriginal.map(([hash, list]) => (
            <div key={hash} className="recoverable-group">
              <p className="small">
                From{" "}
                <a href={`/originals/${hash}`} title={`The cached original the marker hash=${hash} names`}>
                  <code>{hash.slice(0, 16)}…</code>
                </a>{" "}
                (one retrieval away, while the cache keeps it):
              </p>
              <ul className="fact-list recoverable">
                {list.map((fact) => (
                  <li key={fact}>
                    <code>{fact}</code>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      ) : null}
    </section>
  );
}
