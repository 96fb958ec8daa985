import type { PolicyInForce } from "@/lib/guard/policy";
import type { PreviewFloor } from "@/lib/recommend/wire";
import { SaveFloorButton } from "./floor-change";
import { KeptFor } from "./kept-for";
import { formatBytes } from "@/lib/format";
import { Stamp } from "@/components/ui/stamp";
import { ScrollBox } from "@/components/ui/scroll-box";

/**
 * Every stored version of a class's policy, newest first; the first one is in force. An
 * older version can be reverted to: it is saved again as a new version (its retention
 * included), through the same confirmation as any floor change.
 */
export function VersionHistory({
  versions,
  canEdit,
  preview,
}: {
  versions: PolicyInForce[];
  canEdit: boolean;
  preview: PreviewFloor;
}) {
  if (versions.length === 0) {
    return (
      <p className="muted">No stored versions: the built-in conservative default applies until a floor is saved.</p>
    );
  }
  return (
    <ScrollBox label="Version history">
      <table className="data" data-testid="version-history">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Min size</th>
            <th scope="col">Min density</th>
            <th scope="col">Max pass</th>
            <th scope="col">Kept</th>
            <th scope="col">Saved</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v, i) => (
            <tr key={v.version} data-version={v.version}>
              <td>
                v{v.version} {i === 0 ? <span className="badge safe">in force</span> : null}
                {v.note ? (
                  <div className="small-text" data-testid="version-note">
                    {v.note}
                  </div>
                ) : null}
                {v.description ? <div className="muted small-text">{v.description}</div> : null}
              </td>
              <td className="nowrap" title={`${v.min_size_bytes} bytes`}>
                {formatBytes(v.min_size_bytes)}
              </td>
              <td>
                {v.min_semantic_density}
                {v.density_source === "measured" ? (
                  <div className="muted small-text" data-testid="version-density-source">
                    measured
                  </div>
                ) : null}
              </td>
              <td>{v.max_pass_number}</td>
              <td className="nowrap">
                <KeptFor days={v.retention_days} />
              </td>
              <td>
                {v.created_at ? <Stamp iso={v.created_at} /> : "—"}
                <div className="muted small-text">
                  by <span data-testid="version-author">{v.created_by ?? "—"}</span>
                </div>
              </td>
              <td>
                {i === 0 || !versions[0] ? null : (
                  <SaveFloorButton
                    inForce={versions[0]}
                    proposed={{
                      min_size_bytes: v.min_size_bytes,
                      min_semantic_density: v.min_semantic_density,
                      max_pass_number: v.max_pass_number,
                      required_fields: v.required_fields,
                      description: v.description,
                      format: v.format,
                      decoded_format: v.decoded_format,
                      retention_days: v.retention_days,
                      density_source: v.density_source,
                    }}
                    source={`a revert to v${v.version}`}
                    label={`Revert to v${v.version}…`}
                    canEdit={canEdit}
                    preview={preview}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
