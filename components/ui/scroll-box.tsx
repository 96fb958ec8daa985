import type { ReactNode } from "react";

/**
 * A wide table's own horizontal scroll, so a phone never pans the whole page sideways. It
 * takes focus (and a name) so that a keyboard can scroll it too.
 */
export function ScrollBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
