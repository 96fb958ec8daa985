"use client";
// Escape closes a panel whose "close" is a link (the pass detail is a URL state, so closing
// it is navigating to the URL without it).
import { useRouter } from "next/navigation";
import { useEffect } from "react";

export function EscapeCloses({ href }: { href: string }) {
  const router = useRouter();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      // A menu, dialog or open <details> that handles Escape itself comes first.
      if (document.activeElement?.closest("[aria-expanded='true'], dialog[open]")) return;
      router.push(href, { scroll: false });
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [href, router]);
  return null;
}
