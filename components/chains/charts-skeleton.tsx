import { Skeleton } from "@/components/ui/skeleton";

export function ChartsSkeleton() {
  return (
    <section className="panel chain-charts" aria-busy="true">
      <Skeleton height={18} width={180} />
      <div style={{ height: 8 }} />
      <Skeleton height={260} label="Loading size curve" />
      <div style={{ height: 16 }} />
      <Skeleton height={18} width={240} />
      <div style={{ height: 8 }} />
      <Skeleton height={260} label="Loading density curve" />
    </section>
  );
}
