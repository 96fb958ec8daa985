"use client";
// What the keys and operators admin pages share: a list kept in sync with its API after
// each change, one visible error line, and the button that ends an entry (revoke, disable).
import { type ReactNode, useState } from "react";
import { callApi } from "./api-call";

export function useAdminList<T>(url: string, initial: T[]) {
  const [items, setItems] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  /**
   * Runs a change, then reloads the list (or, when the change returns an item instead, puts it
   * first: a change that turned access control on leaves this page nothing to reload with).
   * A failure shows its message instead.
   */
  const change = async (action: () => Promise<unknown>, added?: (result: unknown) => T | null): Promise<boolean> => {
    setError(null);
    try {
      const result = await action();
      const item = added?.(result) ?? null;
      if (item) setItems((current) => [item, ...current]);
      else setItems((await callApi<{ items: T[] }>(url, { method: "GET" })).items);
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    }
  };
  return { items, error, change };
}

export function ErrorLine({ error }: { error: string | null }) {
  return (
    <span role="alert" className="danger-text">
      {error}
    </span>
  );
}

/** The last cell of a row: when it was ended, or the button that ends it after a confirm. */
export function EndCell(props: {
  endedAt: string | null;
  endedWord: string;
  confirm: string;
  label: ReactNode;
  onEnd: () => Promise<unknown>;
}) {
  return (
    <td>
      {props.endedAt ? (
        <span className="muted">
          {props.endedWord} {props.endedAt}
        </span>
      ) : (
        <button
          type="button"
          onClick={async () => {
            if (window.confirm(props.confirm)) await props.onEnd();
          }}
        >
          {props.label}
        </button>
      )}
    </td>
  );
}
