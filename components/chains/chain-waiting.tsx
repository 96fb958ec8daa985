"use client";
// A chain page opened before the chain's first receipt: it stays subscribed and shows the
// chain as soon as it arrives, instead of a dead end that needs a reload.
import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { chainEventsHref, chainsHref } from "@/lib/routes";
import { useEventStream } from "./use-event-stream";

type State = "connecting" | "waiting" | "arrived" | "unavailable";

export function ChainWaiting() {
  const raw = useParams<{ chain_id: string }>().chain_id;
  const chainId = raw ? decodeURIComponent(raw) : "";
  const [state, setState] = useState<State>("connecting");

  useEventStream(
    chainId ? chainEventsHref(chainId, { wait: 1 }) : null,
    (source) => {
      // A full load, not router.refresh(): the not-found boundary this page renders in only
      // resets when the path changes, and here it does not.
      const arrive = () => {
        setState("arrived");
        source.close();
        window.location.reload();
      };
      source.addEventListener("waiting", () => setState("waiting"));
      // The chain was created between the page render and the subscription.
      source.addEventListener("version", arrive);
      source.addEventListener("change", arrive);
    },
    (problem) => setState(problem === "retrying" ? "unavailable" : "connecting"),
  );

  return (
    <div className="panel empty" data-testid="chain-waiting">
      <h1>
        No receipts yet for <span className="mono">{chainId}</span>
      </h1>
      <p>
        This page shows the chain as soon as its first receipt arrives. Check the id, or find the chain in the{" "}
        <Link href={chainsHref()}>list of chains</Link>.
      </p>
      <p className={`live live-${state === "waiting" ? "live" : state}`} role="status" data-state={state}>
        {state === "waiting"
          ? "● waiting for the first receipt"
          : state === "arrived"
            ? "Receipts arrived: loading…"
            : state === "connecting"
              ? "○ connecting…"
              : "live updates paused: retrying"}
      </p>
    </div>
  );
}
