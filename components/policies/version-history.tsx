import type { PolicyInForce } from "@/lib/guard/policy";
import { formatBytes, formatUtc } from "@/lib/format";

/** Every stored version of a class's policy, newest first; the first one is in force. */
export function VersionHistory({ versions }: { versions: PolicyInForce[] }) {
  if (versions.length === 0) {
    return (
      <p className="muted">No stored versions: the built-in conservative default applies until a floor is saved.</p>
    );
  }
  return (
    <table className="data" data-testid="version-history">
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Min size</th>
          <th scope="col">Min density</th>
          <th scope="col">Max pass</th>
          <th scope="col">Saved</th>
          <th scope="col">By</th>
        </tr>
      </thead>
      <tbody>
        {versions.map((v, i) => (
          <tr key={v.version} data-version={v.version}>
            <td>
              v{v.version} {i === 0 ? <span className="badge safe">in force</span> : null}
              {v.description ? <div className="muted small-text">{v.description}</div> : null}
            </td>
            <td title={`${v.min_size_bytes} bytes`}>{formatBytes(v.min_size_bytes)}</td>
            <td>{v.min_semantic_density}</td>
            <td>{v.max_pass_number}</td>
            <td className="nowrap">{formatUtc(v.created_at)}</td>
            <td data-testid="version-author">{v.created_by ?? "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
