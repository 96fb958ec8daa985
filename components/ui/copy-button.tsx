"use client";
// The one copy button. navigator.clipboard exists only in secure contexts (https or
// localhost), and a dashboard opened as http://host:3000 from another machine has none, so
// copying falls back to selecting the text and document.execCommand("copy"). When both fail
// the button says so and shows the text selected in a field, ready for Ctrl+C: a copy that
// fails silently is worse than none.
import { useEffect, useRef, useState } from "react";

async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Permission refused or the page lost focus: the selection route below may still work.
    }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try {
    if (!document.execCommand("copy")) throw new Error("the browser refused to copy");
  } finally {
    area.remove();
  }
}

type CopyState = { kind: "idle" } | { kind: "copied" } | { kind: "failed"; text: string | null; reason: string };

/**
 * `value` is the text to copy; `load` fetches it on click instead (a whole original is not
 * worth holding in the page until someone asks). `icon` draws a small icon button for table
 * cells and headers; otherwise the button shows `label` and "Copied".
 */
export function CopyButton({
  value,
  load,
  label = "Copy",
  icon = false,
}: {
  value?: string;
  load?: () => Promise<string>;
  label?: string;
  icon?: boolean;
}) {
  const [state, setState] = useState<CopyState>({ kind: "idle" });
  const fallback = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (state.kind === "copied") {
      const timer = setTimeout(() => setState({ kind: "idle" }), 1500);
      return () => clearTimeout(timer);
    }
    if (state.kind === "failed") fallback.current?.select();
  }, [state]);

  async function copy() {
    let text: string | null = value ?? null;
    try {
      text ??= load ? await load() : "";
      await writeClipboard(text);
      setState({ kind: "copied" });
    } catch (error) {
      setState({ kind: "failed", text, reason: error instanceof Error ? error.message : String(error) });
    }
  }

  const copied = state.kind === "copied";
  return (
    <span className="copy">
      <button
        type="button"
        className={icon ? "copy-button" : undefined}
        aria-label={icon ? `${label}${value === undefined ? "" : `: ${value}`}` : undefined}
        title={copied ? "Copied" : icon ? label : undefined}
        onClick={(event) => {
          event.stopPropagation();
          void copy();
        }}
      >
        {icon ? copied ? "✓" : <CopyIcon /> : copied ? "Copied" : label}
      </button>
      {state.kind === "failed" ? (
        <span className="copy-failed" role="alert">
          Could not copy ({state.reason}).{" "}
          {state.text !== null ? (
            <>
              Select and copy it by hand:
              <textarea ref={fallback} readOnly value={state.text} rows={1} aria-label="Text to copy" />
            </>
          ) : null}
          <button type="button" onClick={() => setState({ kind: "idle" })}>
            Dismiss
          </button>
        </span>
      ) : null}
    </span>
  );
}

function CopyIcon() {
  return (
    <svg
      width="12"
      height="12"
      viewBox="0 0 16 16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <rect x="5" y="5" width="9" height="9" rx="1.5" />
      <path d="M11 5V3.5A1.5 1.5 0 0 0 9.5 2h-6A1.5 1.5 0 0 0 2 3.5v6A1.5 1.5 0 0 0 3.5 11H5" />
    </svg>
  );
}
