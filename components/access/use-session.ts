"use client";
// Who is signed in, read once per page load and shared by every component that asks (the
// navigation and the session menu), so the header costs one request.
import { useEffect, useState } from "react";
import { callApi } from "./api-call";

export interface SessionState {
  auth: boolean;
  operator: { id: number; name: string; role: "viewer" | "admin" } | null;
}

let pending: Promise<SessionState | null> | null = null;

function readSession(): Promise<SessionState | null> {
  pending ??= callApi<SessionState>("/api/v1/session", { method: "GET" }).catch(() => {
    pending = null;
    return null;
  });
  return pending;
}

/** The session, or null while it loads (or when it could not be read). */
export function useSession(): SessionState | null {
  const [state, setState] = useState<SessionState | null>(null);
  useEffect(() => {
    let live = true;
    readSession().then((s) => {
      if (live) setState(s);
    });
    return () => {
      live = false;
    };
  }, []);
  return state;
}

/** Whether admin pages are open to this visitor: access control off, or an admin signed in. */
export const mayAdminister = (state: SessionState | null): boolean =>
  state !== null && (!state.auth || state.operator?.role === "admin");
