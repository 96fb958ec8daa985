/** The views of one chain. The action-space view is its own route, built from distilled traces. */
export function ChainTabs({ chainId, active }: { chainId: string; active: "curves" | "action-space" }) {
  const base = `/chains/${encodeURIComponent(chainId)}`;
  return (
    <nav className="tabs" aria-label="Chain views">
      <a href={base} aria-current={active === "curves" ? "page" : undefined}>
        Curves &amp; passes
      </a>
      <a href={`${base}/action-space`} aria-current={active === "action-space" ? "page" : undefined}>
        Admissible action space
      </a>
    </nav>
  );
}
