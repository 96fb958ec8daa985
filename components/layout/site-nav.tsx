"use client";
// The main navigation: client-side links (no full reload between pages), the current page
// marked, and on a phone a menu button that folds the links away so nothing runs off-screen.
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import { mayAdminister, useSession } from "@/components/access/use-session";

const NAV = [
  { href: "/", label: "Overview" },
  { href: "/chains", label: "Chains" },
  { href: "/policies", label: "Policies" },
  { href: "/originals", label: "Originals" },
  { href: "/traces", label: "Traces" },
  // Admin-only: shown once the session says this visitor may open it (always when auth is off).
  { href: "/webhooks", label: "Webhooks", admin: true },
  { href: "/admin/keys", label: "Keys", admin: true },
  { href: "/admin/operators", label: "Operators", admin: true },
  { href: "/docs/api", label: "API" },
];

const isCurrent = (pathname: string, href: string) =>
  href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);

export function SiteNav() {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const session = useSession();
  const admin = mayAdminister(session);
  // Following a link closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the path on purpose
  useEffect(() => setOpen(false), [pathname]);
  return (
    // data-session: "ready" once the session is read (the page is hydrated and its header final).
    <nav aria-label="Main" className="site-nav" data-open={open} data-session={session ? "ready" : "loading"}>
      <button
        type="button"
        className="nav-toggle"
        aria-expanded={open}
        aria-controls="site-nav-links"
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(event) => {
          if (event.key === "Escape") setOpen(false);
        }}
      >
        Menu
      </button>
      <ul id="site-nav-links">
        {NAV.filter((item) => admin || !("admin" in item)).map((item) => (
          <li key={item.href}>
            <Link href={item.href} aria-current={isCurrent(pathname, item.href) ? "page" : undefined}>
              {item.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
