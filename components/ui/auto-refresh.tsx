"use client";
// Keeps a list or overview current by re-rendering it on the server every few seconds, with a
// visible pause. Paused while the tab is hidden, so a forgotten tab costs nothing.
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

export const AUTO_REFRESH_MS = 5_000;

export function AutoRefresh({ label = "Auto-refresh" }: { label?: string }) {
  const router = useRouter();
  const [paused, setPaused] = useState(false);
  const [lastAt, setLastAt] = useState<string | null>(null);

  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible") return;
      router.refresh();
      setLastAt(new Date().toISOString().slice(11, 19));
    }, AUTO_REFRESH_MS);
    return () => clearInterval(timer);
  }, [paused, router]);

  return (
    <span className="auto-refresh" data-testid="auto-refresh" data-state={paused ? "paused" : "live"}>
      <span className={`live live-${paused ? "unavailable" : "live"}`}>
        {paused ? "❚❚ paused" : `● ${label.toLowerCase()} every ${AUTO_REFRESH_MS / 1000} s`}
        {lastAt && !paused ? <span className="muted"> · {lastAt} UTC</span> : null}
      </span>{" "}
      <button
        type="button"
        aria-pressed={paused}
        onClick={() => setPaused((p) => !p)}
        data-testid="auto-refresh-toggle"
      >
        {paused ? "Resume" : "Pause"}
      </button>
    </span>
  );
}
