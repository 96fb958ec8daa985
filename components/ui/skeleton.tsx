// Placeholders shown while a Suspense boundary streams in, sized like what replaces them so
// the page does not jump. Each is announced to screen readers once, by its label.

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
