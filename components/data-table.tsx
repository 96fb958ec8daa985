"use client";
// The one table of the app, on @tanstack/react-table v8. Rows arrive already filtered,
// sorted and paged by the server; the table only draws them.
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type RowData } from "@tanstack/react-table";
import { ScrollBox } from "@/components/ui/scroll-box";

declare module "@tanstack/react-table" {
  interface ColumnMeta<TData extends RowData, TValue> {
    /** The column the rows are sorted by, for aria-sort on its header. */
    sort?: "ascending" | "descending";
    /** Drawn on wide screens only: a phone leaves it out (the row's own page or panel shows it). */
    wideOnly?: boolean;
  }
}

/** The meta of a column drawn on wide screens only (up to 640 px it is left out). */
export const WIDE_ONLY = { wideOnly: true } as const;

export interface DataTableProps<Row> {
  // Each column's value type differs (string, number, a row object); TanStack's own
  // createColumnHelper yields ColumnDef<Row, V> per column, which only `any` accepts as one
  // array: `unknown` rejects them because ColumnDef is invariant in its value type.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  columns: ColumnDef<Row, any>[];
  rows: Row[];
  /** Stable id per row (used for keys, selection and test ids). */
  rowId: (row: Row) => string;
  empty?: React.ReactNode;
  selectedId?: string | null;
  onRowClick?: (row: Row) => void;
  testId?: string;
  /** Names the table's scroll box for assistive tech (it takes focus so a keyboard can scroll it). */
  label?: string;
  /**
   * On a phone, each row becomes a card of "header: value" lines instead of a table row, for a
   * list whose columns cannot all fit 390 px (the header's text labels each value).
   */
  stackOnPhone?: boolean;
}

export function DataTable<Row>({
  columns,
  rows,
  rowId,
  empty,
  selectedId,
  onRowClick,
  testId,
  label = "Table",
  stackOnPhone = false,
}: DataTableProps<Row>) {
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: rowId });
  // A wide table scrolls inside its own box, so a phone never pans the whole page sideways.
  return (
    <ScrollBox label={label}>
      <table className={stackOnPhone ? "data stack-on-phone" : "data"} data-testid={testId}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  aria-sort={header.column.columnDef.meta?.sort}
                  className={header.column.columnDef.meta?.wideOnly ? "wide-only" : undefined}
                >
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="empty">
                {empty ?? "Nothing here yet."}
              </td>
            </tr>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr
                key={row.id}
                data-row-id={row.id}
                data-selected={selectedId === row.id}
                onClick={onRowClick ? () => onRowClick(row.original) : undefined}
                style={onRowClick ? { cursor: "pointer" } : undefined}
              >
                {row.getVisibleCells().map((cell) => {
                  const { header, meta } = cell.column.columnDef;
                  return (
                    <td
                      key={cell.id}
                      className={meta?.wideOnly ? "wide-only" : undefined}
                      data-label={stackOnPhone && typeof header === "string" ? header : undefined}
                    >
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  );
                })}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </ScrollBox>
  );
}
