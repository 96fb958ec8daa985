import type { BoundaryWire } from "@/lib/schemas/boundaries";
import type { PassDetail as PassDetailData } from "@/lib/chains/types";
import { formatBytes } from "@/lib/format";
import { EscapeCloses } from "@/components/ui/escape-closes";
import { ShortHash } from "@/components/ui/short-hash";
import { VerdictBadge } from "@/components/ui/verdict-badge";
import { OriginalLinks, type OriginalLinkProps } from "./original-links";
import { FloorChecks } from "./floor-checks";
import { MeasuredFacts } from "./measured-facts";
import type { ServerContentChecks } from "@/lib/guard/explain";

/** Every field of one pass, with the floor that judged it and the boundaries that name it. */
export interface PassDetailProps {
  pass: PassDetailData;
  boundaries: BoundaryWire[];
  closeHref: string;
  originals: { input: OriginalLinkProps | null; output: OriginalLinkProps | null };
  /** What the server found in the pass's content, when it checked it (defaults to the pass's `server_checks`). */
  serverChecks?: ServerContentChecks | null;
}

/** The pass's `server_checks` when the receipt carried content the server checked (absent on older passes). */
function serverChecksOf(pass: PassDetailData): ServerContentChecks | null {
  const checks = (pass as PassDetailData & { server_checks?: ServerContentChecks | null }).server_checks;
  return checks ?? null;
}

export function PassDetail({ pass, boundaries, closeHref, originals, serverChecks }: PassDetailProps) {
  const related = boundaries.filter((b) => b.pass_number === pass.pass_number || b.restore_pass_id === pass.pass_id);
  return (
    <aside className="panel pass-detail" aria-label={`Pass ${pass.pass_id}`} data-testid="pass-detail">
      <div className="detail-head">
        <h2>
          Pass {pass.pass_number} <code>{pass.pass_id}</code>
        </h2>
        <a href={closeHref} aria-label="Close pass details (Escape)">
          ✕ close
        </a>
        <EscapeCloses href={closeHref} />
      </div>
      <dl className="fields">
        <dt>Verdict</dt>
        <dd>
          <VerdictBadge verdict={pass.verdict} /> <code>{pass.verdict}</code>
        </dd>
        <dt>Directive</dt>
        <dd className="directive">{pass.directive}</dd>
      </dl>
      <section aria-labelledby="floor-checks-heading" className="floor-checks-section">
        <h3 id="floor-checks-heading">Checks of the floor</h3>
        <FloorChecks pass={pass} serverChecks={serverChecks ?? serverChecksOf(pass)} />
      </section>
      <MeasuredFacts pass={pass} />
      <dl className="fields">
        <dt>Judged by</dt>
        <dd>
          <a href={`/policies?class=${encodeURIComponent(pass.policy.content_class)}`}>{pass.policy.content_class}</a>{" "}
          policy v{pass.policy.version}
          {pass.policy.version === 0 ? " (built-in default)" : ""}: size ≥ {formatBytes(pass.policy.min_size_bytes)},
          density ≥ {pass.policy.min_semantic_density}, pass ≤ {pass.policy.max_pass_number}
        </dd>
        <dt>Size</dt>
        <dd>
          {pass.current_size_bytes.toLocaleString("en")} bytes ({formatBytes(pass.current_size_bytes)})
        </dd>
        <dt>Semantic density</dt>
        <dd>{pass.semantic_density_score}</dd>
        <dt>Parseable / schema valid</dt>
        <dd>
          {pass.is_parseable ? "yes" : <strong className="danger-text">no</strong>} /{" "}
          {pass.schema_valid ? "yes" : <strong className="danger-text">no</strong>}
        </dd>
        <dt>Input hash</dt>
        <dd>
          <ShortHash value={pass.input_content_hash} length={24} />
        </dd>
        <dt>Output hash</dt>
        <dd>
          <ShortHash value={pass.current_content_hash} length={24} />
        </dd>
        <dt>Manifest digest</dt>
        <dd>
          <ShortHash value={pass.manifest_digest} length={24} />
        </dd>
        <dt>Client verdict</dt>
        <dd>
          {pass.client_verdict ?? <span className="muted">not sent</span>}
          {pass.client_mismatch ? <span className="badge warn"> mismatch</span> : null}
        </dd>
        <ServerChecksField pass={pass} />
        <dt>Client digest</dt>
        <dd>
          <ShortHash value={pass.client_manifest_digest} length={24} />
        </dd>
        <dt>Created / received</dt>
        <dd>
          <time dateTime={pass.created_at}>{pass.created_at}</time> /{" "}
          <time dateTime={pass.received_at}>{pass.received_at}</time>
        </dd>
        <dt>Cached originals</dt>
        <dd>
          <OriginalLinks input={originals.input} output={originals.output} />
        </dd>
        {related.map((b) => (
          <BoundaryField key={b.pass_number} boundary={b} />
        ))}
        <dt>Metadata</dt>
        <dd>
          {pass.metadata ? (
            <pre className="json">{JSON.stringify(pass.metadata, null, 2)}</pre>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
      </dl>
    </aside>
  );
}

function BoundaryField({ boundary }: { boundary: BoundaryWire }) {
  return (
    <>
      <dt>Boundary</dt>
      <dd>
        <strong>{boundary.strategy.replace("_", " ")}</strong> at pass {boundary.pass_number}: {boundary.reason}
        {boundary.restore_pass_id ? ` (restores ${boundary.restore_pass_id})` : ""}
      </dd>
    </>
  );
}

/** What the server found in the pass's content, beside what the client claimed. */
function ServerChecksField({ pass }: { pass: PassDetailData }) {
  const checks = pass.server_checks;
  if (!checks) {
    return (
      <>
        <dt>Server checks</dt>
        <dd>
          <span className="muted">no content sent</span>
        </dd>
      </>
    );
  }
  const mark = (ok: boolean | null) =>
    ok === null ? <span className="muted">not checked</span> : ok ? "yes" : <strong className="danger-text">no</strong>;
  return (
    <>
      <dt>Server checks</dt>
      <dd data-testid="server-checks">
        size {mark(checks.size_matches)}, hash {mark(checks.hash_matches)}, parseable {mark(checks.parseable)}, schema{" "}
        {mark(checks.schema_valid)}
        {checks.problems.length > 0 ? (
          <ul className="problems">
            {checks.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        ) : null}
      </dd>
      <dt>Checked verdict</dt>
      <dd>
        {pass.checked_verdict}
        {pass.checked_mismatch ? (
          <span className="badge warn" data-testid="checked-mismatch">
            {" "}
            content contradicts the client
          </span>
        ) : null}
      </dd>
    </>
  );
}
