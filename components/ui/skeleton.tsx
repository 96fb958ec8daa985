// Placeholders shown while a Suspense boundary streams in, sized like what replaces them so
// the page does not jump. The one that carries a label is announced to screen readers; the rest are silent.

export function Skeleton({
  height,
  width = "100%",
  label,
}: {
  height: number;
  width?: number | string;
  label?: string;
}) {
  if (!label) return <div className="skeleton" style={{ height, width }} />;
  return <div className="skeleton" style={{ height, width }} role="status" aria-label={label} />;
}

export function TableSkeleton({ rows = 8, label = "Loading table" }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-busy="true" aria-label={label} className="table-skeleton">
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholder rows that never reorder
        <div key={i} className="skeleton" style={{ height: 28, marginBottom: 6 }} />
      ))}
    </div>
  );
}

/** A list page streaming in: its title, a line of filters or text, then the table. */
export function ListPageSkeleton({ label, rows, titleWidth }: { label: string; rows: number; titleWidth: number }) {
  return (
    <>
      <Skeleton height={28} width={titleWidth} label={label} />
      <div style={{ height: 12 }} />
      <Skeleton height={34} width="70%" />
      <div style={{ height: 16 }} />
      <TableSkeleton rows={rows} label={label} />
    </>
  );
}
