// The dashboard's own calls to the API: same-origin JSON with the session cookie, and the
// contract's error body turned into one readable sentence.
export async function callApi<T>(path: string, init: { method: string; body?: unknown }): Promise<T> {
  const response = await fetch(path, {
    method: init.method,
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: "same-origin",
  });
  if (response.status === 204) return undefined as T;
  const json = (await response.json().catch(() => ({}))) as T & {
    error?: { message?: string; issues?: { path: string; message: string }[] };
  };
  if (!response.ok) {
    const issues = (json.error?.issues ?? []).map((i) => `${i.path}: ${i.message}`).join("; ");
    throw new Error(
      `${json.error?.message ?? `The server answered ${response.status}.`}${issues ? ` (${issues})` : ""}`,
    );
  }
  return json;
}
