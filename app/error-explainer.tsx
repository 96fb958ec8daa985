"use client";

import { useEffect, useState } from "react";

type Cause = "checking" | "database" | "other";

// Beside the error pages rather than in components/, since it asks the server something
// (components never fetch). In production the browser never sees a server error's message,
// only its digest, so whether the database is the cause is asked of the health endpoint,
// which answers 503 when the database cannot be reached.
function useCause(digest: string | undefined): Cause {
  const [cause, setCause] = useState<Cause>(digest === "DATABASE_UNAVAILABLE" ? "database" : "checking");
  useEffect(() => {
    if (cause !== "checking") return;
    let live = true;
    fetch("/api/v1/health", { cache: "no-store" })
      .then((r) => live && setCause(r.status === 503 ? "database" : "other"))
      .catch(() => live && setCause("other"));
    return () => {
      live = false;
    };
  }, [cause]);
  return cause;
}

/** The body of the error pages: what happened, in words, and what to do about it. */
export function ErrorExplainer({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const cause = useCause(error.digest);
  return (
    <div className="panel empty" role="alert" data-testid="error-page" data-cause={cause}>
      {cause === "database" ? (
        <>
          <h1>The database is unavailable</h1>
          <p>
            Floorline cannot reach its database right now, so this page cannot be shown. Nothing you sent is lost:
            receipts that were acknowledged are stored. Wait a few seconds and try again; if it persists, check that the
            database server is running (or, for the embedded database, that no other process holds its folder).
          </p>
        </>
      ) : (
        <>
          <h1>Something went wrong</h1>
          <p>
            This page failed to render. Try again; if it keeps failing, the server's log has the details
            {error.digest ? (
              <>
                {" "}
                under the reference <code>{error.digest}</code>
              </>
            ) : null}
            .
          </p>
        </>
      )}
      <p>
        <button type="button" onClick={reset}>
          Try again
        </button>{" "}
        or go back to the <a href="/">overview</a>.
      </p>
    </div>
  );
}
