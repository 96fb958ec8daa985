"use client";
// One side of the side-by-side view. Text is fetched a page at a time from the page's own
// content route, so a 32 MiB original never sits in the DOM whole; JSON small enough to
// parse comfortably is shown as a foldable tree. Everything is rendered as text.
import { useEffect, useState } from "react";
import { originalContentHref } from "@/lib/routes";
import { CopyButton } from "@/components/ui/copy-button";
import { Skeleton } from "@/components/ui/skeleton";
import { JsonTree } from "./json-tree";

export const PAGE_CHARS = 64 * 1024;
/** Above this, parsing and holding the tree would cost the browser more than it is worth. */
export const TREE_LIMIT_CHARS = 4 * 1024 * 1024;

export interface ContentPaneProps {
  hash: string;
  part: "original" | "compressed";
  title: string;
  totalChars: number;
  contentType: string | null;
}

type Tree = { value: unknown } | { error: string };

async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  return response.text();
}

export function ContentPane({ hash, part, title, totalChars, contentType }: ContentPaneProps) {
  const jsonLike = (contentType ?? "").includes("json");
  const treeAllowed = jsonLike && totalChars <= TREE_LIMIT_CHARS;
  const [mode, setMode] = useState<"tree" | "text">(treeAllowed ? "tree" : "text");
  const pages = Math.max(1, Math.ceil(totalChars / PAGE_CHARS));
  const [page, setPage] = useState(0);
  const [slice, setSlice] = useState<{ page: number; text: string } | null>(null);
  const [whole, setWhole] = useState<string | null>(null);
  const [tree, setTree] = useState<Tree | null>(null);
  const [error, setError] = useState<string | null>(null);
  const canTree = treeAllowed && !(tree && "error" in tree);

  useEffect(() => {
    if (mode !== "text" || slice?.page === page) return;
    const controller = new AbortController();
    fetch(originalContentHref(hash, part, { offset: page * PAGE_CHARS, length: PAGE_CHARS }), {
      signal: controller.signal,
    })
      .then(async (response) => {
        if (!response.ok) throw new Error(`the server answered ${response.status}`);
        const body = (await response.json()) as { text: string };
        setSlice({ page, text: body.text });
        setError(null);
      })
      .catch((e: Error) => {
        if (e.name !== "AbortError") setError(`Could not load this page: ${e.message}.`);
      });
    return () => controller.abort();
  }, [hash, part, mode, page, slice?.page]);

  useEffect(() => {
    if (mode !== "tree" || tree) return;
    const controller = new AbortController();
    fetchText(originalContentHref(hash, part), controller.signal)
      .then((text) => {
        setWhole(text);
        try {
          setTree({ value: JSON.parse(text) });
        } catch (e) {
          setTree({ error: (e as Error).message });
          setMode("text");
        }
      })
      .catch((e: Error) => {
        if (e.name !== "AbortError") setError(`Could not load the content: ${e.message}.`);
      });
    return () => controller.abort();
  }, [hash, part, mode, tree]);

  async function loadWhole(): Promise<string> {
    const text = whole ?? (await fetchText(originalContentHref(hash, part)));
    setWhole(text);
    return text;
  }

  return (
    <section className="panel content-pane" aria-label={title} data-testid={`pane-${part}`}>
      <header className="content-pane-header">
        <h2>{title}</h2>
        <div className="content-pane-actions">
          {canTree ? (
            <fieldset className="view-toggle">
              <legend className="visually-hidden">View</legend>
              <button type="button" aria-pressed={mode === "tree"} onClick={() => setMode("tree")}>
                Tree
              </button>
              <button type="button" aria-pressed={mode === "text"} onClick={() => setMode("text")}>
                Text
              </button>
            </fieldset>
          ) : null}
          <CopyButton load={loadWhole} label="Copy" />
          <a className="ccr-button-link" href={originalContentHref(hash, part, { download: 1 })} download>
            Download
          </a>
        </div>
      </header>
      {jsonLike && !treeAllowed ? (
        <p className="muted">Too large for the tree view; showing the text as stored, a page at a time.</p>
      ) : null}
      {tree && "error" in tree ? (
        <p className="muted">Not valid JSON ({tree.error}); showing the text as stored.</p>
      ) : null}
      {error ? (
        <p className="badge danger" role="alert">
          {error}
        </p>
      ) : null}
      {mode === "tree" ? (
        tree && "value" in tree ? (
          <JsonTree value={tree.value} />
        ) : (
          <Skeleton height={240} label="Loading content" />
        )
      ) : (
        <>
          {pages > 1 ? (
            <nav className="pager content-pager" aria-label={`${title} pages`}>
              <button type="button" onClick={() => setPage(0)} disabled={page === 0}>
                First
              </button>
              <button type="button" onClick={() => setPage(page - 1)} disabled={page === 0}>
                Previous
              </button>
              <span data-testid="page-indicator">
                Page {page + 1} of {pages}
              </span>
              <button type="button" onClick={() => setPage(page + 1)} disabled={page >= pages - 1}>
                Next
              </button>
              <button type="button" onClick={() => setPage(pages - 1)} disabled={page >= pages - 1}>
                Last
              </button>
            </nav>
          ) : null}
          {slice?.page === page ? (
            // biome-ignore lint/a11y/noNoninteractiveTabindex: the text scrolls, and a keyboard must reach it
            <pre className="content-text" data-testid="content-text" tabIndex={0}>
              {slice.text}
            </pre>
          ) : (
            <Skeleton height={240} label="Loading content" />
          )}
        </>
      )}
    </section>
  );
}
