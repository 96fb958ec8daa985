/** Placeholder rows while a list streams in. */
export function TableSkeleton({ rows, label }: { rows: number; label: string }) {
  return (
    <div aria-busy="true" aria-label={label} className="audit-skeleton-stack">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" style={{ height: 28 }} />
      ))}
    </div>
  );
}
