import Link from "next/link";

/** One end or direction of a pager: a link when there is a page there, greyed text when not. */
export interface PagerStep {
  href: string | null;
  text: string;
  testId?: string;
  rel?: "prev" | "next";
}

/**
 * Keyset paging links for every list. Each step's href already carries the list's filters and
 * sort; a step with no page behind it stays in place, greyed, so the links do not jump about.
 * A list that fits on one page shows no pager at all.
 */
export function Pager({ label, testId, steps }: { label: string; testId?: string; steps: PagerStep[] }) {
  if (steps.every((s) => !s.href)) return null;
  return (
    <nav className="pager" aria-label={label} data-testid={testId}>
      {steps.map((s) =>
        s.href ? (
          <Link key={s.text} href={s.href} rel={s.rel} data-testid={s.testId}>
            {s.text}
          </Link>
        ) : (
          <span key={s.text} className="muted" aria-disabled="true">
            {s.text}
          </span>
        ),
      )}
    </nav>
  );
}

/** The steps of a list that opens on its newest page: the time-ordered audit lists. */
export function newestFirstSteps({
  first,
  newer,
  older,
}: {
  first: string | null;
  newer: string | null;
  older: string | null;
}): PagerStep[] {
  return [
    { href: first, text: "Newest" },
    { href: newer, text: "← Newer", rel: "prev" },
    { href: older, text: "Older →", rel: "next" },
  ];
}
