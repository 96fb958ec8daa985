"use client";
import { callApi } from "./api-call";
import { useSession } from "./use-session";

/** Who is signed in, and sign-out; nothing when auth is off. Admin pages are in the site nav. */
export function SessionMenu() {
  const state = useSession();
  if (!state?.operator) return null;
  return (
    <div className="session-menu" data-testid="session-menu">
      <span className="muted">
        {state.operator.name} ({state.operator.role})
      </span>
      <button
        type="button"
        onClick={async () => {
          await callApi("/api/v1/session", { method: "DELETE" }).catch(() => {});
          window.location.assign("/sign-in");
        }}
      >
        Sign out
      </button>
    </div>
  );
}
