import { Skeleton } from "@/components/ui/skeleton";

export function FiguresSkeleton() {
  return (
    <section className="figures" aria-busy="true" role="status" aria-label="Loading figures">
      {Array.from({ length: 6 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders that never reorder
        <div key={i} className="figure">
          <Skeleton height={30} width="50%" />
          <div style={{ height: 6 }} />
          <Skeleton height={14} width="80%" />
        </div>
      ))}
    </section>
  );
}

export function PanelSkeleton({ label, height = 300 }: { label: string; height?: number }) {
  return (
    <section className="panel" aria-busy="true">
      <Skeleton height={18} width={220} />
      <div style={{ height: 10 }} />
      <Skeleton height={height} label={label} />
    </section>
  );
}
