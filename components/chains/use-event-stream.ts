"use client";
// One subscription to a server event stream that comes back by itself. The browser retries a
// stream that drops, but not one the server refused (429 when a caller holds its share of
// streams, 503 while the database is down): EventSource closes for good then. Here a closed
// stream is opened again after a growing, jittered wait, so a page left open recovers when
// the server has room again, without every page retrying at the same moment.
import { useEffect, useRef } from "react";

export type StreamProblem = "connecting" | "retrying";

const FIRST_RETRY_MS = 2_000;
const LAST_RETRY_MS = 60_000;

/**
 * Subscribes to `url` (none while it is null). `listen` adds the event listeners to each new
 * EventSource; `onProblem` hears when the stream is reconnecting on its own ("connecting") or
 * was closed and will be opened again after a wait ("retrying").
 */
export function useEventStream(
  url: string | null,
  listen: (source: EventSource) => void,
  onProblem: (problem: StreamProblem) => void,
): void {
  const callbacks = useRef({ listen, onProblem });
  callbacks.current = { listen, onProblem };

  useEffect(() => {
    if (!url) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let failures = 0;
    const open = () => {
      const current = new EventSource(url);
      source = current;
      current.onopen = () => {
        failures = 0;
      };
      callbacks.current.listen(current);
      current.onerror = () => {
        if (current.readyState !== EventSource.CLOSED) {
          callbacks.current.onProblem("connecting");
          return;
        }
        current.close();
        const ceiling = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
        failures++;
        callbacks.current.onProblem("retrying");
        retry = setTimeout(open, ceiling / 2 + Math.random() * (ceiling / 2));
      };
    };
    open();
    return () => {
      source?.close();
      if (retry) clearTimeout(retry);
    };
  }, [url]);
}
