"use client";
// The editor proposes; saving goes through the one confirmation (floor-change.tsx), which
// shows the change and its effect, asks for a note and then PUTs through the API.
import { useState } from "react";
import {
  CONTENT_FORMATS,
  type ContentFormat,
  DECODED_FORMATS,
  type DecodedFormat,
  type DensitySource,
} from "@/lib/content-checks/formats";
import type { PolicyInForce } from "@/lib/guard/policy";
import type { PreviewFloor } from "@/lib/recommend/wire";
import { FloorChangeDialog, type FloorFields as ProposedFloor } from "./floor-change";
import { type Floor, FloorFields, ValueSelect, ViewerNote } from "./floor-fields";

export type PolicyDraft = Floor;

export function PolicyEditor({
  current,
  draft,
  fromWhatIf,
  canEdit,
  preview,
}: {
  current: PolicyInForce;
  draft: PolicyDraft;
  fromWhatIf: boolean;
  /** False for a signed-in viewer: the form is read-only, and the API would refuse anyway. */
  canEdit: boolean;
  preview: PreviewFloor;
}) {
  const [proposed, setProposed] = useState<ProposedFloor | null>(null);

  function propose(form: HTMLFormElement) {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const format = (text("format") || "any") as ContentFormat;
    setProposed({
      min_size_bytes: Number(text("min_size_bytes")),
      min_semantic_density: Number(text("min_semantic_density")),
      max_pass_number: Number(text("max_pass_number")),
      required_fields: text("required_fields")
        .split(/[\n,]/)
        .map((f) => f.trim())
        .filter(Boolean),
      description: text("description") || null,
      format,
      // "any" is what no decoded format means; null keeps an unchanged save unchanged.
      decoded_format:
        format === "base64" && text("decoded_format") !== "any"
          ? ((text("decoded_format") || null) as DecodedFormat | null)
          : null,
      // Empty: the server-wide FLOORLINE_RETENTION_DAYS.
      retention_days: text("retention_days") === "" ? null : Number(text("retention_days")),
      density_source: (text("density_source") || current.density_source) as DensitySource,
    });
  }

  // The confirmation is a form of its own, so it sits beside this one, never inside it.
  return (
    <>
      <form
        className="policy-editor"
        data-testid="policy-editor"
        onSubmit={(event) => {
          event.preventDefault();
          propose(event.currentTarget);
        }}
      >
        {fromWhatIf ? (
          <p className="note">Prefilled with the what-if candidate below. Nothing is saved until you press Save.</p>
        ) : null}
        <FloorFields
          values={draft}
          labels={{ size: "Min size (bytes)", density: "Min semantic density", maxPass: "Max pass number" }}
          remount
        />
        <label>
          Required fields <span className="muted">(one per line, dotted paths)</span>
          <textarea name="required_fields" rows={3} defaultValue={current.required_fields.join("\n")} />
        </label>
        <ValueSelect
          label={
            <>
              Content format <span className="muted">(how the server reads receipt content)</span>
            </>
          }
          name="format"
          values={CONTENT_FORMATS}
          defaultValue={current.format}
          testId="policy-format"
        />
        <ValueSelect
          label={
            <>
              Decoded as <span className="muted">(base64 only)</span>
            </>
          }
          name="decoded_format"
          values={DECODED_FORMATS}
          defaultValue={current.decoded_format ?? "any"}
        />
        <label>
          Density the chains follow{" "}
          <span className="muted">(the measured one wherever the server measured a pass&apos;s content)</span>
          <select name="density_source" defaultValue={current.density_source} data-testid="policy-density-source">
            <option value="client">client: the density the agent claims</option>
            <option value="measured">measured: the density Floorline measures</option>
          </select>
        </label>
        <label>
          Kept (days) <span className="muted">(empty: the server-wide FLOORLINE_RETENTION_DAYS)</span>
          <input
            name="retention_days"
            type="number"
            min={1}
            max={36_500}
            step={1}
            inputMode="numeric"
            defaultValue={current.retention_days ?? ""}
          />
        </label>
        <label>
          Description
          <input name="description" type="text" defaultValue={current.version > 0 ? (current.description ?? "") : ""} />
        </label>
        {canEdit ? null : <ViewerNote testId="policy-read-only" />}
        <div className="form-actions">
          <button type="submit" className="primary" disabled={!canEdit}>
            Save as version {current.version + 1}…
          </button>
          <span className="muted">You confirm the change, see its effect and add a note before anything is saved.</span>
        </div>
      </form>
      {proposed ? (
        <FloorChangeDialog
          inForce={current}
          proposed={proposed}
          source="the editor"
          canEdit={canEdit}
          preview={preview}
          onClose={() => setProposed(null)}
        />
      ) : null}
    </>
  );
}
