// The points of a chart as a table behind a "Show data" disclosure: the keyboard and screen
// reader route to every value the picture shows.
import type { ReactNode } from "react";
import { ScrollBox } from "@/components/ui/scroll-box";

export interface ChartDataProps {
  caption: string;
  columns: string[];
  rows: { key: string; cells: ReactNode[] }[];
  testId?: string;
}

export function ChartData({ caption, columns, rows, testId }: ChartDataProps) {
  return (
    <details className="chart-data" data-testid={testId}>
      <summary>Show data ({rows.length.toLocaleString("en")} rows)</summary>
      <ScrollBox label={caption}>
        <table className="data ccr-compact">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                {r.cells.map((cell, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional, like the columns
                  <td key={i}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </details>
  );
}
