// On a failing chain's page: which of its class's recommended floors would have stopped it
// before the failure, and at which pass (a replay of this chain through the guard).
import type { OptionCatch } from "@/lib/recommend/wire";

export function RecommendedCatch({
  contentClass,
  failure,
  cause,
  options,
  notEnough,
}: {
  contentClass: string;
  failure: number;
  /** What failed there, in words (a roll-back, or content that broke). */
  cause: string;
  options: OptionCatch[];
  /** Set when the class has too few chains for a recommendation. */
  notEnough?: { chains: number; minimum: number };
}) {
  return (
    <section className="panel recommended-catch" aria-label="Recommended floors" data-testid="recommended-catch">
      <h3>Would a recommended floor have caught this?</h3>
      <p className="muted small">
        <span data-testid="chain-failure" data-pass={failure}>
          This chain failed at pass {failure}: {cause}.
        </span>{" "}
        Replayed through the guard under each floor recommended for{" "}
        <a href={`/policies?class=${encodeURIComponent(contentClass)}#recommendation`}>{contentClass}</a>:
      </p>
      {notEnough ? (
        <p className="muted" role="note">
          No recommendation: {contentClass} has {notEnough.chains} recorded chain{notEnough.chains === 1 ? "" : "s"},
          fewer than the {notEnough.minimum} it needs.
        </p>
      ) : (
        <ul data-testid="recommended-catch-list">
          {options.map((o) => (
            <li key={o.name} data-option={o.name} data-caught={o.caught}>
              <strong>{o.name}</strong> (size ≥ {o.policy.min_size_bytes}, density ≥ {o.policy.min_semantic_density},
              pass ≤ {o.policy.max_pass_number}):{" "}
              {o.caught && o.halt ? (
                <span className="safe-text">
                  caught it at pass {o.halt.pass_number}, {failure - o.halt.pass_number} pass
                  {failure - o.halt.pass_number === 1 ? "" : "es"} before the failure
                  <span className="directive-inline"> · {o.halt.directive}</span>
                </span>
              ) : (
                <span className="danger-text">
                  {failure <= 2
                    ? "no floor could have: the guard never stops a first pass"
                    : `would not have caught it: no pass before ${failure} is under this floor`}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
