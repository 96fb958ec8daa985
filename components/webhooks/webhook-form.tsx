"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { webhookApiHref } from "@/lib/routes";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "@/lib/webhooks/payload";
import { type ApiProblem, callApi, Problem } from "./api";

/** Adds a webhook; its secret is shown here once, and never again. */
export function WebhookForm() {
  const router = useRouter();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit(form: HTMLFormElement) {
    const data = new FormData(form);
    const contentClass = String(data.get("content_class") ?? "").trim();
    const body = {
      url: String(data.get("url") ?? "").trim(),
      events: data.getAll("events").map(String),
      format: String(data.get("format") ?? "json"),
      ...(contentClass ? { content_class: contentClass } : {}),
    };
    setSaving(true);
    setProblem(null);
    setCreated(null);
    const result = await callApi<{ id: string; secret: string }>(webhookApiHref(), { method: "POST", body });
    setSaving(false);
    if (!result.ok) return setProblem(result.problem);
    setCreated({ id: result.data.id, secret: result.data.secret });
    form.reset();
    router.refresh();
  }

  return (
    <form
      className="panel webhook-form"
      aria-label="Add a webhook"
      data-testid="webhook-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit(event.currentTarget);
      }}
    >
      <h2>Add a webhook</h2>
      <div className="form-grid">
        <label>
          URL
          <input name="url" type="url" required placeholder="https://example.com/floorline" />
        </label>
        <label>
          Content class (optional)
          <input name="content_class" pattern="[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}" placeholder="every class" />
        </label>
        <label>
          Format
          <select name="format" defaultValue="json">
            {WEBHOOK_FORMATS.map((f) => (
              <option key={f} value={f}>
                {f === "json" ? "JSON (signed)" : "Slack"}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type}>
            <input type="checkbox" name="events" value={type} defaultChecked={type === "chain.collapsed"} /> {type}
          </label>
        ))}
      </fieldset>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? "Adding…" : "Add webhook"}
        </button>
      </div>
      <Problem problem={problem} />
      {created ? (
        <div className="note" role="status">
          Webhook {created.id} added. Its signing secret is shown only now:{" "}
          <code className="mono" data-testid="webhook-secret">
            {created.secret}
          </code>
        </div>
      ) : null}
    </form>
  );
}
