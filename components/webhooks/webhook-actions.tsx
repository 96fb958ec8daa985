"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { webhookApiHref } from "@/lib/routes";
import { type ApiProblem, callApi, Problem } from "./api";

/** Pause or resume, send a test event, delete: one row's buttons. */
export function WebhookActions({ id, active }: { id: string; active: boolean }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const path = webhookApiHref(id);

  async function act(run: () => ReturnType<typeof callApi>, done: string) {
    setBusy(true);
    setProblem(null);
    setStatus(null);
    const result = await run();
    setBusy(false);
    if (!result.ok) return setProblem(result.problem);
    setStatus(done);
    router.refresh();
  }

  return (
    <div className="toolbar">
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          void act(() => callApi(path, { method: "PATCH", body: { active: !active } }), active ? "Paused." : "Resumed.")
        }
      >
        {active ? "Pause" : "Resume"}
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          void act(() => callApi(webhookApiHref(id, "test"), { method: "POST", body: {} }), "Test event queued.")
        }
      >
        Send test event
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          if (window.confirm("Delete this webhook and its pending deliveries?")) {
            void act(() => callApi(path, { method: "DELETE" }), "Deleted.");
          }
        }}
      >
        Delete
      </button>
      {status ? (
        <span role="status" className="muted">
          {status}
        </span>
      ) : null}
      <Problem problem={problem} />
    </div>
  );
}
