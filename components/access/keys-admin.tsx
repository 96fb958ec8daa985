"use client";
import { ScrollTable } from "@/components/ui/scroll-box";
import { useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { EndCell, ErrorLine, useAdminList } from "./admin-list";
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
export function KeysAdmin({ initial, noOperator }: { initial: KeyRow[]; noOperator: boolean }) {
  const { items: keys, error, change } = useAdminList("/api/v1/keys", initial);
  const [created, setCreated] = useState<{ name: string; key: string; notice: string | null } | null>(null);
  return (
    <>
      {noOperator && !created?.notice ? (
        <p className="audit-notice" role="note" data-testid="first-key-warning">
          No operator exists yet. Creating a key turns access control on: from then on every page asks for a signed-in
          operator. Create an admin in <a href="/admin/operators">Operators</a> first, or afterwards at{" "}
          <a href="/sign-in">/sign-in</a> from a browser on this machine.
        </p>
      ) : null}
      <form
        className="panel toolbar"
        aria-label="Create an API key"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          const made = await change(
            async () => {
              const key = await callApi<KeyRow & { key: string; notice: string | null }>("/api/v1/keys", {
                method: "POST",
                body: { name: String(data.get("name") ?? ""), scopes: data.getAll("scopes").map(String) },
              });
              setCreated({ name: key.name, key: key.key, notice: key.notice });
              return key;
            },
            // Access control just turned on: this page may no longer list keys until someone signs in.
            (key) => {
              const { key: _secret, notice, ...row } = key as KeyRow & { key: string; notice: string | null };
              return notice ? row : null;
            },
          );
          if (made) form.reset();
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
        <ErrorLine error={error} />
      </form>
      {created ? (
        <div className="panel" data-testid="new-key">
          <p>
            The key <strong>{created.name}</strong>. Copy it now: it is not stored and will not be shown again.
          </p>
          <p className="new-secret mono">
            <code data-testid="new-key-value">{created.key}</code> <CopyButton value={created.key} label="Copy key" />
          </p>
          {created.notice ? (
            <div className="audit-notice" role="status" data-testid="new-key-notice">
              <p>{created.notice}</p>
              <p>
                <a href="/sign-in">Create the first admin now</a>
              </p>
            </div>
          ) : null}
        </div>
      ) : null}
      <ScrollTable
        label="API keys"
        testId="keys-table"
        columns={["Name", "Id", "Scopes", "Created", "Last used", "State"]}
      >
        {keys.map((k) => (
          <tr key={k.id} data-key-id={k.id}>
            <td>{k.name}</td>
            <td className="mono">{k.id}</td>
            <td>{k.scopes.join(", ")}</td>
            <td className="nowrap">
              {k.created_at} {k.created_by ? `by ${k.created_by}` : ""}
            </td>
            <td className="nowrap">{k.last_used_at ?? "never"}</td>
            <EndCell
              endedAt={k.revoked_at}
              endedWord="revoked"
              confirm={`Revoke the key ${k.name}? Anything using it stops working at once.`}
              label="Revoke"
              onEnd={() => change(() => callApi(`/api/v1/keys/${k.id}`, { method: "DELETE" }))}
            />
          </tr>
        ))}
      </ScrollTable>
    </>
  );
}
