/** A placeholder block of the size the content will take, announced to screen readers once. */
export function Skeleton({
  height,
  width = "100%",
  label,
}: {
  height: number;
  width?: number | string;
  label?: string;
}) {
  return <div className="skeleton" style={{ height, width }} role={label ? "status" : undefined} aria-label={label} />;
}

export function TableSkeleton({ rows = 8, label = "Loading table" }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-label={label} className="table-skeleton">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" style={{ height: 28, marginBottom: 6 }} />
      ))}
    </div>
  );
}
