"use client";
// Keeps an open chain page current: listens to the chain's event stream and re-renders the
// page on the server when a pass or boundary arrives (at most every couple of seconds, so
// a chain receiving a burst of passes does not re-render for each one).
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { chainEventsHref } from "@/lib/routes";
import { useEventStream } from "./use-event-stream";

const MIN_REFRESH_MS = 2_000;

type State = "connecting" | "live" | "unavailable";

export function LiveUpdates({ chainId, passCount }: { chainId: string; passCount: number }) {
  const router = useRouter();
  const [state, setState] = useState<State>("connecting");
  const [arrived, setArrived] = useState(0);
  const shown = useRef(passCount);
  const lastRefresh = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    shown.current = passCount;
    setArrived(0);
  }, [passCount]);

  useEffect(
    () => () => {
      if (pending.current) clearTimeout(pending.current);
    },
    [],
  );

  useEventStream(
    chainEventsHref(chainId),
    (source) => {
      source.addEventListener("version", () => setState("live"));
      source.addEventListener("change", (event) => {
        const { pass_count } = JSON.parse((event as MessageEvent<string>).data) as { pass_count: number };
        setArrived(Math.max(0, pass_count - shown.current));
        if (pending.current) return;
        const wait = Math.max(0, lastRefresh.current + MIN_REFRESH_MS - Date.now());
        pending.current = setTimeout(() => {
          pending.current = null;
          lastRefresh.current = Date.now();
          router.refresh();
        }, wait);
      });
    },
    (problem) => setState(problem === "retrying" ? "unavailable" : "connecting"),
  );

  return (
    <span className={`live live-${state}`} data-testid="live-status" data-state={state} role="status">
      {state === "live" ? "● live" : state === "connecting" ? "○ connecting…" : "live updates paused: retrying"}
      {arrived > 0 ? ` · ${arrived} new` : ""}
    </span>
  );
}
