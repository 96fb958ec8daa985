"use client";
// The one confirmation every floor save goes through, wherever it starts (the editor, the
// what-if, a recommended option, a revert): the change against the floor in force, what it
// would have done to the recorded chains, a note saying why, then PUT /api/v1/policies/{class}
// like any other client (same validation and versioning), with the operator's session.
import { ScrollBox } from "@/components/ui/scroll-box";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { ContentFormat, DecodedFormat, DensitySource } from "@/lib/content-checks/formats";
import type { FloorPreview, PreviewFloor } from "@/lib/recommend/wire";
import { policyApiHref } from "@/lib/routes";
import { MOVEMENT_LABEL, MOVEMENTS } from "@/lib/chains/what-if";
import { ViewerNote } from "./floor-fields";

export interface FloorFields {
  min_size_bytes: number;
  min_semantic_density: number;
  max_pass_number: number;
  required_fields: string[];
  description: string | null;
  // Sent with every save: a PUT without them would reset the class's content checks.
  format: ContentFormat;
  decoded_format: DecodedFormat | null;
  /** Days the class's chains are kept; null: the server-wide setting. Absent: unchanged (the API keeps them). */
  retention_days?: number | null;
  /** Whose density the chains follow (docs/measurement.md). Absent: unchanged (the API keeps it). */
  density_source?: DensitySource;
}

export interface FloorInForce extends FloorFields {
  content_class: string;
  version: number;
}

interface ApiErrorBody {
  error?: { message?: string; issues?: { path: string; message: string }[] };
}

type SaveOutcome =
  | { kind: "saved" | "unchanged"; version: number }
  | { kind: "error"; message: string; issues: string[] }
  | null;

const FIELDS: { key: keyof FloorFields; label: string }[] = [
  { key: "min_size_bytes", label: "Min size (bytes)" },
  { key: "min_semantic_density", label: "Min density" },
  { key: "max_pass_number", label: "Max pass" },
  { key: "required_fields", label: "Required fields" },
  { key: "description", label: "Description" },
  { key: "format", label: "Content format" },
  { key: "decoded_format", label: "Decoded as" },
  { key: "retention_days", label: "Kept (days)" },
  { key: "density_source", label: "Density followed" },
];

const shown = (value: FloorFields[keyof FloorFields], key?: keyof FloorFields) =>
  key === "retention_days" && (value === null || value === undefined)
    ? "server-wide"
    : Array.isArray(value)
      ? value.join(", ") || "none"
      : value === null || value === undefined || value === ""
        ? "none"
        : String(value);

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** A button that opens the confirmation for one proposed floor. */
export function SaveFloorButton({
  inForce,
  proposed,
  source,
  label,
  canEdit,
  preview,
  testId,
}: {
  inForce: FloorInForce;
  proposed: FloorFields;
  source: string;
  label: string;
  canEdit: boolean;
  preview: PreviewFloor;
  testId?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} data-testid={testId}>
        {label}
      </button>
      {open ? (
        <FloorChangeDialog
          inForce={inForce}
          proposed={proposed}
          source={source}
          canEdit={canEdit}
          preview={preview}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}

export function FloorChangeDialog({
  inForce,
  proposed,
  source,
  canEdit,
  preview: previewFloor,
  onClose,
}: {
  inForce: FloorInForce;
  proposed: FloorFields;
  /** Where the change came from, said in the dialog. */
  source: string;
  canEdit: boolean;
  /** A server action: the effect is computed on the server, from the recorded chains. */
  preview: PreviewFloor;
  onClose: () => void;
}) {
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const [preview, setPreview] = useState<FloorPreview | null>(null);
  const [saving, setSaving] = useState(false);
  const [outcome, setOutcome] = useState<SaveOutcome>(null);

  useEffect(() => {
    dialog.current?.showModal();
    let live = true;
    previewFloor(inForce.content_class, {
      min_size_bytes: proposed.min_size_bytes,
      min_semantic_density: proposed.min_semantic_density,
      max_pass_number: proposed.max_pass_number,
    })
      .then((p) => live && setPreview(p))
      .catch(() => live && setPreview({ ok: false, message: "Could not compute the effect." }));
    return () => {
      live = false;
    };
  }, [
    previewFloor,
    inForce.content_class,
    proposed.min_size_bytes,
    proposed.min_semantic_density,
    proposed.max_pass_number,
  ]);

  // A field the proposal leaves out (`retention_days` from a what-if) stays as it is.
  const changed = FIELDS.filter(
    (f) => proposed[f.key] !== undefined && shown(inForce[f.key], f.key) !== shown(proposed[f.key], f.key),
  );

  async function save(form: HTMLFormElement) {
    const data = new FormData(form);
    const note = String(data.get("note") ?? "").trim();
    setSaving(true);
    setOutcome(null);
    try {
      const response = await fetch(policyApiHref(inForce.content_class), {
        method: "PUT",
        // Same-origin: the operator's session cookie goes with it, and the version records who saved it.
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...proposed, note }),
      });
      const json = (await response.json()) as { version: number } & ApiErrorBody;
      if (!response.ok) {
        setOutcome({
          kind: "error",
          message: json.error?.message ?? `The server answered ${response.status}.`,
          issues: (json.error?.issues ?? []).map((i) => `${i.path}: ${i.message}`),
        });
        return;
      }
      setOutcome({ kind: response.status === 201 ? "saved" : "unchanged", version: json.version });
      router.refresh();
    } catch {
      setOutcome({ kind: "error", message: "Could not reach the server.", issues: [] });
    } finally {
      setSaving(false);
    }
  }

  const close = () => {
    dialog.current?.close();
    onClose();
  };

  return (
    <dialog
      ref={dialog}
      className="floor-change"
      data-testid="floor-change-dialog"
      aria-labelledby="floor-change-title"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save(event.currentTarget);
        }}
      >
        <h3 id="floor-change-title">
          Save the floor of {inForce.content_class} as version {inForce.version + 1}
        </h3>
        <p className="muted small">From {source}. Nothing is saved until you confirm.</p>
        {changed.length === 0 ? (
          <p className="warn-text">This is the floor in force already: saving it changes nothing.</p>
        ) : (
          <ScrollBox label="Changed fields">
            <table className="data" data-testid="floor-change-diff">
              <caption className="muted small">
                Against the floor in force ({inForce.version === 0 ? "built-in default" : `v${inForce.version}`})
              </caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">In force</th>
                  <th scope="col">New</th>
                </tr>
              </thead>
              <tbody>
                {changed.map((f) => (
                  <tr key={f.key} data-field={f.key}>
                    <th scope="row">{f.label}</th>
                    <td>{shown(inForce[f.key], f.key)}</td>
                    <td>
                      <strong>{shown(proposed[f.key], f.key)}</strong>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        )}
        {/* The effect arrives after the dialog opens. Its slot keeps the height of the table it will
            show from the start, so the note and the buttons below never move under the pointer. */}
        <div className="floor-change-effect-slot">
          <EffectTable
            caption="On the 000 recorded chain(s): 000 failing, 000 guarded, 000 healthy"
            rows={EFFECT_LABELS.map((label) => [label, "00.0%", "00.0%"])}
            whatIf="no chain's collapse point moves."
            placeholder
          />
          <Effect preview={preview} />
        </div>
        <label>
          Change note <span className="muted">(why; kept in the version history)</span>
          <textarea name="note" rows={2} required maxLength={2048} data-testid="floor-change-note" />
        </label>
        {canEdit ? null : <ViewerNote testId="floor-change-read-only" />}
        <div className="form-actions">
          <button type="submit" className="primary" disabled={saving || !canEdit || outcome?.kind === "saved"}>
            {saving ? "Saving…" : `Confirm: save as version ${inForce.version + 1}`}
          </button>
          <button type="button" onClick={close}>
            {outcome?.kind === "saved" ? "Close" : "Cancel"}
          </button>
          <span role="status" data-testid="floor-change-status">
            {outcome?.kind === "saved" ? (
              <span className="safe-text">Saved as version {outcome.version}; it judges passes from now on.</span>
            ) : null}
            {outcome?.kind === "unchanged" ? (
              <span className="muted">No change: this is version {outcome.version} already.</span>
            ) : null}
            {outcome?.kind === "error" ? (
              <span className="danger-text">
                {outcome.message}
                {outcome.issues.length ? ` (${outcome.issues.join("; ")})` : ""}
              </span>
            ) : null}
          </span>
        </div>
      </form>
    </dialog>
  );
}

// The placeholder's rows: the longest label each row can have.
const EFFECT_LABELS = [
  "Failures caught",
  "Failures missed",
  "Healthy or guarded chains halted early",
  "Compression kept",
];

function Effect({ preview }: { preview: FloorPreview | null }) {
  if (preview === null) return <p className="muted">Replaying the recorded chains under the new floor…</p>;
  if (!preview.ok) return <p className="warn-text">{preview.message}</p>;
  if (preview.chains === 0) return <p className="muted">No chain of this class is recorded: no effect to show.</p>;
  const rows: [string, string, string][] = [
    ["Failures caught", String(preview.inForce.failures_caught), String(preview.proposed.failures_caught)],
    ["Failures missed", String(preview.inForce.failures_missed), String(preview.proposed.failures_missed)],
    [
      preview.guarded > 0 ? "Healthy or guarded chains halted early" : "Healthy chains halted early",
      String(preview.inForce.healthy_halted_early),
      String(preview.proposed.healthy_halted_early),
    ],
    ["Compression kept", percent(preview.inForce.compression_kept), percent(preview.proposed.compression_kept)],
  ];
  const moved = MOVEMENTS.filter((m) => m !== "unchanged_healthy" && m !== "unchanged_collapsed").filter(
    (m) => preview.movements[m] > 0,
  );
  return (
    <EffectTable
      caption={`On the ${preview.chains} recorded chain(s): ${preview.failures} failing, ${preview.guarded} guarded, ${preview.healthy} healthy`}
      rows={rows}
      whatIf={
        moved.length === 0
          ? "no chain's collapse point moves."
          : moved.map((m) => `${MOVEMENT_LABEL[m].toLowerCase()}: ${preview.movements[m]}`).join(" · ")
      }
    />
  );
}

/** The effect's table; with `placeholder`, an invisible one that holds its place while it loads. */
function EffectTable({
  caption,
  rows,
  whatIf,
  placeholder = false,
}: {
  caption: string;
  rows: [string, string, string][];
  whatIf: string;
  placeholder?: boolean;
}) {
  const table = (
    <table className="data">
      <caption className="muted small">{caption}</caption>
      <thead>
        <tr>
          <th scope="col" />
          <th scope="col">In force</th>
          <th scope="col">New</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([label, now, next]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{now}</td>
            <td>{now === next ? next : <strong>{next}</strong>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  if (placeholder) {
    return (
      <div className="floor-change-effect-placeholder" aria-hidden>
        {table}
        <p className="muted small">What-if: {whatIf}</p>
      </div>
    );
  }
  return (
    <div data-testid="floor-change-effect">
      <ScrollBox label="Effect on the recorded chains">{table}</ScrollBox>
      <p className="muted small">What-if: {whatIf}</p>
    </div>
  );
}
