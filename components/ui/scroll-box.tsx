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

/**
 * A data table in its own scroll box: the column headings, then the rows given as children
 * (`<tr>`s). In a flush panel unless `panel` is false (when it already sits in one).
 */
export function ScrollTable({
  label,
  columns,
  testId,
  className,
  panel = true,
  children,
}: {
  label: string;
  columns: readonly ReactNode[];
  testId?: string;
  className?: string;
  panel?: boolean;
  children: ReactNode;
}) {
  const table = (
    <ScrollBox label={label}>
      <table className={className ? `data ${className}` : "data"} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the headings are fixed per table
              <th key={i} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollBox>
  );
  return panel ? <div className="panel flush">{table}</div> : table;
}
