"use client";
import { callApi } from "./api-call";
import { useSession } from "./use-session";

/** Who is signed in, the admin links for an admin, and sign-out; nothing when auth is off. */
export function SessionMenu() {
  const state = useSession();
  if (!state?.operator) return null;
  return (
    <div className="session-menu" data-testid="session-menu">
      {state.operator.role === "admin" ? (
        <>
          <a href="/admin/keys">Keys</a>
          <a href="/admin/operators">Operators</a>
        </>
      ) : null}
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
