import { Fragment } from "react";
import { explainPass, type ServerContentChecks } from "@/lib/guard/explain";
import type { PassDetail } from "@/lib/chains/types";

/**
 * Every check of the floor on one pass, the pass's value against the limit, and the gate the
 * guard stopped at. The guard names only that first gate; later failures are shown as not reached.
 */
export function FloorChecks({ pass, serverChecks }: { pass: PassDetail; serverChecks?: ServerContentChecks | null }) {
  const { checks } = explainPass(pass, pass.policy, serverChecks);
  return (
    <table className="floor-checks" data-testid="floor-checks">
      <caption className="visually-hidden">Checks of the floor on this pass</caption>
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">This pass</th>
          <th scope="col">Limit</th>
          <th scope="col">Result</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c) => (
          <tr
            key={c.key}
            data-gate={c.key}
            data-decided={c.decided ? "true" : undefined}
            className={c.decided ? "decided" : undefined}
          >
            <th scope="row">
              {c.label}
              {c.field ? <code className="gate-field">{breakAtUnderscores(c.field)}</code> : null}
              {c.problems.length > 0 ? (
                <ul className="problems" data-testid="check-problems">
                  {c.problems.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              ) : null}
            </th>
            <td>
              <code>{c.value}</code>
              {c.checked !== null && c.checked !== c.ok ? (
                <span className="checked-value danger-text" data-testid="checked-value">
                  checked: <code>{c.checked ? "yes" : "no"}</code>
                </span>
              ) : null}
            </td>
            <td>
              <code>{c.limit}</code>
            </td>
            <td>{resultText(c)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function resultText(c: ReturnType<typeof explainPass>["checks"][number]) {
  const verdict = breakAtUnderscores(c.verdict);
  if (c.key === "first_pass") return c.decided ? <strong>decided: {verdict}</strong> : "no: the checks below judge it";
  if (c.decided) return <strong className="danger-text">fails: decided {verdict}</strong>;
  if (c.unreached_failure) return <span className="warn-text">fails too (the guard stopped earlier)</span>;
  // The gate judged the claim; the content the server checked says otherwise.
  if (c.ok && c.checked === false) return <span className="danger-text">holds on the claim; fails as checked</span>;
  return c.ok ? "holds" : "fails";
}

/** `FLOOR_BREACH_DETECTED` may wrap after an underscore in a narrow panel, never inside a word. */
function breakAtUnderscores(text: string) {
  const parts = text.split("_");
  return parts.map((part, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, never reordered.
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 ? (
        <>
          _<wbr />
        </>
      ) : null}
    </Fragment>
  ));
}
