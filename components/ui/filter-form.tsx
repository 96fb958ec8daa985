import type { ReactNode } from "react";

/**
 * A list's filters as a plain GET form in a search landmark: it works before hydration, the
 * server does the filtering, and every submitted view is a shareable link.
 */
export function FilterForm({ label, action, children }: { label: string; action: string; children: ReactNode }) {
  return (
    <search aria-label={label}>
      <form method="get" action={action} className="toolbar">
        {children}
      </form>
    </search>
  );
}
