"use client";
import { useState } from "react";
import { callApi } from "./api-call";

/** Posts the name and password to /api/v1/session; on success the cookie is set and we go to `next`. */
export function SignInForm({ next, defaultName }: { next: string; defaultName?: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="panel sign-in"
      aria-label="Sign in"
      onSubmit={async (event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        setBusy(true);
        setError(null);
        try {
          await callApi("/api/v1/session", {
            method: "POST",
            body: { name: String(data.get("name") ?? ""), password: String(data.get("password") ?? "") },
          });
          window.location.assign(next);
        } catch (e) {
          setError((e as Error).message);
          setBusy(false);
        }
      }}
    >
      <label>
        Name
        <input name="name" autoComplete="username" required defaultValue={defaultName} />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <span role="alert" className="danger-text" data-testid="sign-in-error">
          {error}
        </span>
      </div>
    </form>
  );
}
