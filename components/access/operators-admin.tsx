"use client";
import { ScrollTable } from "@/components/ui/scroll-box";
import { EndCell, ErrorLine, useAdminList } from "./admin-list";
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
  const { items: operators, error, change } = useAdminList("/api/v1/operators", initial);
  return (
    <>
      <form
        className="panel toolbar"
        aria-label="Create an operator"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          const made = await change(() =>
            callApi("/api/v1/operators", {
              method: "POST",
              body: {
                name: String(data.get("name") ?? ""),
                role: String(data.get("role") ?? "viewer"),
                password: String(data.get("password") ?? ""),
              },
            }),
          );
          if (made) form.reset();
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
        <ErrorLine error={error} />
      </form>
      <ScrollTable label="Operators" testId="operators-table" columns={["Name", "Role", "Created", "State"]}>
        {operators.map((o) => (
          <tr key={o.id}>
            <td>{o.name}</td>
            <td>{o.role}</td>
            <td className="nowrap">{o.created_at}</td>
            <EndCell
              endedAt={o.disabled_at}
              endedWord="disabled"
              confirm={`Disable ${o.name}? Their sessions end at once.`}
              label="Disable"
              onEnd={() => change(() => callApi(`/api/v1/operators/${o.id}`, { method: "DELETE" }))}
            />
          </tr>
        ))}
      </ScrollTable>
    </>
  );
}
