// The Webhooks page changes webhooks through the API, like any other client: the same
// validation (including the target checks) and the same access rules.

export interface ApiProblem {
  message: string;
  issues: string[];
}

export async function callApi<T>(
  path: string,
  init: { method: string; body?: unknown },
): Promise<{ ok: true; status: number; data: T } | { ok: false; problem: ApiProblem }> {
  try {
    const response = await fetch(path, {
      method: init.method,
      headers: init.body === undefined ? {} : { "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: "same-origin",
    });
    if (response.status === 204) return { ok: true, status: 204, data: undefined as T };
    const json = (await response.json().catch(() => ({}))) as T & {
      error?: { message?: string; issues?: { path: string; message: string }[] };
    };
    if (!response.ok) {
      return {
        ok: false,
        problem: {
          message: json.error?.message ?? `The server answered ${response.status}.`,
          issues: (json.error?.issues ?? []).map((i) => `${i.path}: ${i.message}`),
        },
      };
    }
    return { ok: true, status: response.status, data: json };
  } catch {
    return { ok: false, problem: { message: "Could not reach the server.", issues: [] } };
  }
}

export function Problem({ problem }: { problem: ApiProblem | null }) {
  if (!problem) return null;
  return (
    <div role="alert" className="danger-text">
      {problem.message}
      {problem.issues.length > 0 ? (
        <ul>
          {problem.issues.map((issue) => (
            <li key={issue}>{issue}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
