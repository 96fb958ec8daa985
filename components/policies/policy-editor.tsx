"use client";
// Saving a floor goes through the API (PUT /api/v1/policies/{class}), like any other client:
// the same validation, the same versioning. The browser sends the operator's session cookie
// (same-origin, JSON), and the version records who saved it.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { policyApiHref } from "@/lib/routes";
import { CONTENT_FORMATS, DECODED_FORMATS } from "@/lib/content-checks/formats";
import type { PolicyInForce } from "@/lib/guard/policy";
import { type Floor, FloorFields } from "./floor-fields";

export type PolicyDraft = Floor;

interface ApiErrorBody {
  error?: { message?: string; issues?: { path: string; message: string }[] };
}

type Outcome =
  | { kind: "saved" | "unchanged"; version: number }
  | { kind: "error"; message: string; issues: string[] }
  | null;

export function PolicyEditor({
  current,
  draft,
  fromWhatIf,
  canEdit,
}: {
  current: PolicyInForce;
  draft: PolicyDraft;
  fromWhatIf: boolean;
  /** False for a signed-in viewer: the form is shown read-only, and the API would refuse anyway. */
  canEdit: boolean;
}) {
  const router = useRouter();
  const [saving, setSaving] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  async function save(form: HTMLFormElement) {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const body = {
      min_size_bytes: Number(text("min_size_bytes")),
      min_semantic_density: Number(text("min_semantic_density")),
      max_pass_number: Number(text("max_pass_number")),
      required_fields: text("required_fields")
        .split(/[\n,]/)
        .map((f) => f.trim())
        .filter(Boolean),
      description: text("description") || null,
      // Sent every time: a PUT without them would reset the class to the defaults.
      format: text("format") || "any",
      // "any" is what no decoded format means; sending null keeps an unchanged save unchanged.
      decoded_format:
        text("format") === "base64" && text("decoded_format") !== "any" ? text("decoded_format") || null : null,
    };
    setSaving(true);
    setOutcome(null);
    try {
      const response = await fetch(policyApiHref(current.content_class), {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as PolicyInForce & ApiErrorBody;
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

  return (
    <form
      className="policy-editor"
      data-testid="policy-editor"
      onSubmit={(event) => {
        event.preventDefault();
        void save(event.currentTarget);
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
      <label>
        Content format <span className="muted">(how the server reads receipt content)</span>
        <select name="format" defaultValue={current.format} data-testid="policy-format">
          {CONTENT_FORMATS.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </label>
      <label>
        Decoded as <span className="muted">(base64 only)</span>
        <select name="decoded_format" defaultValue={current.decoded_format ?? "any"}>
          {DECODED_FORMATS.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </label>
      <label>
        Description
        <input name="description" type="text" defaultValue={current.version > 0 ? (current.description ?? "") : ""} />
      </label>
      {canEdit ? null : (
        <p className="note" data-testid="policy-read-only">
          Only an admin can change a floor; you are signed in as a viewer.
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving || !canEdit}>
          {saving ? "Saving…" : `Save as version ${current.version + 1}`}
        </button>
        <span role="status" data-testid="policy-save-status">
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
  );
}
