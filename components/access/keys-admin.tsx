"use client";
import { useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { callApi } from "./api-call";

export interface KeyRow {
  id: string;
  name: string;
  scopes: string[];
  created_at: string;
  created_by: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

const SCOPES = ["ingest", "read", "admin"] as const;

/** Create a key (shown once, with a copy button) and revoke keys; every change goes through /api/v1/keys. */
export function KeysAdmin({ initial }: { initial: KeyRow[] }) {
  const [keys, setKeys] = useState(initial);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = async () => setKeys((await callApi<{ items: KeyRow[] }>("/api/v1/keys", { method: "GET" })).items);
  return (
    <>
      <form
        className="panel toolbar"
        aria-label="Create an API key"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          setError(null);
          try {
            const key = await callApi<KeyRow & { key: string }>("/api/v1/keys", {
              method: "POST",
              body: { name: String(data.get("name") ?? ""), scopes: data.getAll("scopes").map(String) },
            });
            setCreated({ name: key.name, key: key.key });
            form.reset();
            await refresh();
          } catch (e) {
            setError((e as Error).message);
          }
        }}
      >
        <label>
          Name <input name="name" required placeholder="e.g. agent-ci" />
        </label>
        {SCOPES.map((scope) => (
          <label key={scope}>
            <input type="checkbox" name="scopes" value={scope} defaultChecked={scope !== "admin"} /> {scope}
          </label>
        ))}
        <button type="submit" className="primary">
          Create key
        </button>
        <span role="alert" className="danger-text">
          {error}
        </span>
      </form>
      {created ? (
        <div className="panel" data-testid="new-key">
          <p>
            The key <strong>{created.name}</strong>. Copy it now: it is not stored and will not be shown again.
          </p>
          <p className="new-secret mono">
            <code data-testid="new-key-value">{created.key}</code> <CopyButton value={created.key} label="Copy key" />
          </p>
        </div>
      ) : null}
      <table className="data panel" data-testid="keys-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} data-key-id={k.id}>
              <td>{k.name}</td>
              <td className="mono">{k.id}</td>
              <td>{k.scopes.join(", ")}</td>
              <td className="nowrap">
                {k.created_at} {k.created_by ? `by ${k.created_by}` : ""}
              </td>
              <td className="nowrap">{k.last_used_at ?? "never"}</td>
              <td>
                {k.revoked_at ? (
                  <span className="muted">revoked {k.revoked_at}</span>
                ) : (
                  <button
                    type="button"
                    onClick={async () => {
                      if (!window.confirm(`Revoke the key ${k.name}? Anything using it stops working at once.`)) return;
                      try {
                        await callApi(`/api/v1/keys/${k.id}`, { method: "DELETE" });
                        await refresh();
                      } catch (e) {
                        setError((e as Error).message);
                      }
                    }}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
