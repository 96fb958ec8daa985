import { type ContentDiff, describeChange, type DiffLine } from "@/lib/originals/diff";
import type { DetailedMeasurement } from "@/lib/measure/index";
import { formatBytes, formatCount } from "@/lib/format";

/**
 * What compression lost, at the top of an original's page: first the facts of the original
 * (numbers, names, paths, hashes, error lines...: docs/measurement.md) the compressed text
 * lost, then, for JSON, each path dropped, array shortened or value changed, with how often;
 * for text, a line diff with context.
 */
export function LossSummary({
  diff,
  facts = null,
  measureLimit,
}: {
  diff: ContentDiff | null;
  /** The compressed text measured against the original; "too_large" when either side is over `measureLimit`. */
  facts?: DetailedMeasurement | "too_large" | null;
  measureLimit?: number;
}) {
  return (
    <section className="panel loss-summary" aria-labelledby="loss-heading" data-testid="loss-summary">
      <h2 id="loss-heading">What compression lost</h2>
      {facts === "too_large" ? (
        <p className="muted" data-testid="loss-facts">
          Facts not counted: a side is over {formatBytes(measureLimit ?? 0)}. <code>POST /api/v1/measure</code> with the
          two texts counts them.
        </p>
      ) : facts ? (
        <FactLoss facts={facts} />
      ) : null}
      {diff === null ? (
        <p className="muted">No compressed text was stored with this original, so there is nothing to compare.</p>
      ) : diff.kind === "too_large" ? (
        <p className="muted">
          Not compared: one side is over {formatBytes(diff.limit)}. Compare the two texts below by hand.
        </p>
      ) : diff.kind === "json" ? (
        <JsonLoss diff={diff} />
      ) : (
        <TextLoss diff={diff} />
      )}
    </section>
  );
}

function FactLoss({ facts }: { facts: DetailedMeasurement }) {
  const counts = facts.facts;
  if (!counts) return null;
  if (counts.in_source === 0)
    return (
      <p className="muted" data-testid="loss-facts">
        The original states no specific facts (numbers, names, paths, hashes, errors) to lose.
      </p>
    );
  return (
    <div data-testid="loss-facts">
      <p>
        <strong className={counts.lost > 0 ? "danger-text" : undefined}>
          {formatCount(counts.lost)} of {formatCount(counts.in_source)} facts
        </strong>{" "}
        of the original are not in the compressed text
        {counts.recoverable > 0 ? `, ${formatCount(counts.recoverable)} more only through its marker` : ""}; it states{" "}
        {formatCount(counts.retained)}. Measured density{" "}
        <strong className="measured-text">{facts.semantic_density_score.toFixed(3)}</strong>{" "}
        <span className="muted">({facts.method})</span>.
      </p>
      {facts.lost_examples.length > 0 ? (
        <ul className="fact-list lost" data-testid="loss-fact-list" aria-label="Facts lost">
          {facts.lost_examples.map((fact) => (
            <li key={fact}>
              <code>{fact}</code>
            </li>
          ))}
        </ul>
      ) : null}
      {counts.lost > facts.lost_examples.length ? (
        <p className="muted small">The {facts.lost_examples.length} weightiest shown.</p>
      ) : null}
      {facts.recoverable_examples.length > 0 ? (
        <p className="small" data-testid="loss-recoverable">
          Recoverable through the marker:{" "}
          {facts.recoverable_examples.map(({ fact }, i) => (
            <span key={fact}>
              {i > 0 ? ", " : ""}
              <code>{fact}</code>
            </span>
          ))}
        </p>
      ) : null}
      <h3 className="loss-subhead">Lines and paths</h3>
    </div>
  );
}

function JsonLoss({ diff }: { diff: Extract<ContentDiff, { kind: "json" }> }) {
  if (diff.changes.length === 0) return <p>Nothing: the compressed JSON has every path and value of the original.</p>;
  return (
    <>
      <ul className="loss-list" data-testid="loss-paths">
        {diff.changes.map((c) => (
          <li key={`${c.kind} ${c.path}`} data-kind={c.kind}>
            <span className={`badge ${c.kind === "added" ? "neutral" : c.kind === "changed" ? "warn" : "danger"}`}>
              {c.kind.replace("_", " ")}
            </span>{" "}
            {describeChange(c)}
          </li>
        ))}
      </ul>
      {diff.truncated ? <p className="muted">More paths changed than are listed here.</p> : null}
      <p className="muted small">
        Paths use <code>[]</code> for every element of an array; elements are compared position by position.
      </p>
    </>
  );
}

function TextLoss({ diff }: { diff: Extract<ContentDiff, { kind: "text" }> }) {
  return (
    <>
      <p data-testid="loss-lines">
        <strong>
          {formatCount(diff.removed)} of {formatCount(diff.lines_before)} lines
        </strong>{" "}
        of the original are not in the compressed text; {formatCount(diff.added)} of its {formatCount(diff.lines_after)}{" "}
        lines are new.
      </p>
      {diff.script === null ? (
        <p className="muted">The two texts differ too much for a line-by-line view: the counts above cover them.</p>
      ) : diff.script.length > 0 ? (
        <div className="line-diff" data-testid="line-diff">
          <pre>
            {diff.script.map((line) => (
              // Every line has a number on at least one side, and the pair is unique in the script.
              <DiffRow key={`${line.before ?? "-"}:${line.after ?? "-"}`} line={line} />
            ))}
          </pre>
          {diff.script_truncated ? (
            <p className="muted small">The view stops here; the counts cover everything.</p>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

const SIGN = { same: " ", removed: "−", added: "+" } as const;

function DiffRow({ line }: { line: DiffLine }) {
  return (
    <span className={`diff-${line.op}`}>
      <span className="diff-no" aria-hidden="true">
        {String(line.before ?? "").padStart(6)} {String(line.after ?? "").padStart(6)}
      </span>{" "}
      <span className="visually-hidden">{line.op === "same" ? "" : `${line.op}: `}</span>
      <span aria-hidden="true">{SIGN[line.op]}</span> {line.text}
      {"\n"}
    </span>
  );
}
