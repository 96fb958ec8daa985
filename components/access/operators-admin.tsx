"use client";
import { useState } from "react";
import { callApi } from "./api-call";

export interface OperatorRow {
  id: number;
  name: string;
  role: "viewer" | "admin";
  created_at: string;
  disabled_at: string | null;
}

/** Create operators and disable them (which ends their sessions); through /api/v1/operators. */
export function OperatorsAdmin({ initial }: { initial: OperatorRow[] }) {
  const [operators, setOperators] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const refresh = async () =>
    setOperators((await callApi<{ items: OperatorRow[] }>("/api/v1/operators", { method: "GET" })).items);
  return (
    <>
      <form
        className="panel toolbar"
        aria-label="Create an operator"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          setError(null);
          try {
            await callApi("/api/v1/operators", {
              method: "POST",
              body: {
                name: String(data.get("name") ?? ""),
                role: String(data.get("role") ?? "viewer"),
                password: String(data.get("password") ?? ""),
              },
            });
            form.reset();
            await refresh();
          } catch (e) {
            setError((e as Error).message);
          }
        }}
      >
        <label>
          Name <input name="name" required autoComplete="off" />
        </label>
        <label>
          Role{" "}
          <select name="role" defaultValue="viewer">
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>
          Password <input name="password" type="password" required minLength={10} autoComplete="new-password" />
        </label>
        <button type="submit" className="primary">
          Create operator
        </button>
        <span role="alert" className="danger-text">
          {error}
        </span>
      </form>
      <table className="data panel" data-testid="operators-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {operators.map((o) => (
            <tr key={o.id}>
              <td>{o.name}</td>
              <td>{o.role}</td>
              <td className="nowrap">{o.created_at}</td>
              <td>
                {o.disabled_at ? (
                  <span className="muted">disabled {o.disabled_at}</span>
                ) : (
                  <button
                    type="button"
                    onClick={async () => {
                      if (!window.confirm(`Disable ${o.name}? Their sessions end at once.`)) return;
                      try {
                        await callApi(`/api/v1/operators/${o.id}`, { method: "DELETE" });
                        await refresh();
                      } catch (e) {
                        setError((e as Error).message);
                      }
                    }}
                  >
                    Disable
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
