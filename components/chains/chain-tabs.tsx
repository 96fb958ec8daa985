import { actionSpaceHref, chainFactsHref, chainHref } from "@/lib/routes";

/** The views of one chain. The action-space view is its own route, built from distilled traces. */
export function ChainTabs({ chainId, active }: { chainId: string; active: "curves" | "facts" | "action-space" }) {
  return (
    <nav className="tabs" aria-label="Chain views">
      <a href={chainHref(chainId)} aria-current={active === "curves" ? "page" : undefined}>
        Curves &amp; passes
      </a>
      <a href={chainFactsHref(chainId)} aria-current={active === "facts" ? "page" : undefined}>
        Facts
      </a>
      <a href={actionSpaceHref(chainId)} aria-current={active === "action-space" ? "page" : undefined}>
        Admissible action space
      </a>
    </nav>
  );
}
