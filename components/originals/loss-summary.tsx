import { type ContentDiff, describeChange, type DiffLine } from "@/lib/originals/diff";
import { formatBytes, formatCount } from "@/lib/format";

/**
 * What compression lost, at the top of an original's page: for JSON, each path dropped,
 * array shortened or value changed, with how often; for text, a line diff with context.
 */
export function LossSummary({ diff }: { diff: ContentDiff | null }) {
  return (
    <section className="panel loss-summary" aria-labelledby="loss-heading" data-testid="loss-summary">
      <h2 id="loss-heading">What compression lost</h2>
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
