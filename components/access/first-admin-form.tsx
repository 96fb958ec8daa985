"use client";
import { useState } from "react";
import type { FirstAdminAnswer } from "@/lib/schemas/access";
import { SignInForm } from "./sign-in-form";

type Create = (input: { name: string; password: string; token?: string }) => Promise<FirstAdminAnswer>;

/**
 * The first admin operator, on the sign-in page while none exists: a name and a password
 * twice (and FLOORLINE_API_TOKEN where the request is not from the server's machine). Once
 * made, the usual sign-in form, with the name filled in.
 */
export function FirstAdminForm(props: {
  create: Create;
  needsToken: boolean;
  minPassword: number;
  next: string;
  /** What the page says of the offer, and the CLI command that does the same. */
  intro: string;
  command: string;
}) {
  const { create, needsToken, minPassword, next } = props;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  if (created !== null) {
    return (
      <>
        <h1>Sign in</h1>
        <div className="first-admin">
          <p className="note done" role="status" data-testid="first-admin-created">
            The admin operator <strong>{created}</strong> is created. Sign in with its password.
          </p>
          <SignInForm next={next} defaultName={created} />
        </div>
      </>
    );
  }
  return (
    <>
      <h1>Create the first operator</h1>
      <p className="subtitle" data-testid="first-admin-offer">
        {props.intro}
      </p>
      <div className="first-admin">
        {form()}
        <p className="muted">
          Or, on the server&apos;s machine: <code>{props.command}</code>
        </p>
      </div>
    </>
  );

  function form() {
    return (
      <form
        className="panel sign-in"
        aria-label="Create the first admin operator"
        onSubmit={async (event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          const password = String(data.get("password") ?? "");
          if (password !== String(data.get("again") ?? "")) {
            setError("The two passwords differ.");
            return;
          }
          setBusy(true);
          setError(null);
          try {
            const answer = await create({
              name: String(data.get("name") ?? ""),
              password,
              ...(needsToken ? { token: String(data.get("token") ?? "") } : {}),
            });
            if (answer.ok) setCreated(answer.name);
            else setError(answer.message);
          } catch {
            setError("The server refused: reload the page to see what it offers now.");
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>
          Name
          <input name="name" autoComplete="username" required defaultValue="admin" />
        </label>
        <label>
          Password ({minPassword} characters or more)
          <input name="password" type="password" autoComplete="new-password" required minLength={minPassword} />
        </label>
        <label>
          Password again
          <input name="again" type="password" autoComplete="new-password" required minLength={minPassword} />
        </label>
        {needsToken ? (
          <label>
            FLOORLINE_API_TOKEN
            <input name="token" type="password" autoComplete="off" required />
          </label>
        ) : null}
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? "Creating…" : "Create admin"}
          </button>
          <span role="alert" className="danger-text" data-testid="first-admin-error">
            {error}
          </span>
        </div>
      </form>
    );
  }
}
