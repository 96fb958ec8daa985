import { ChartsSkeleton } from "@/components/chains/charts-skeleton";
import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <>
      <Skeleton height={28} width={320} label="Loading chain" />
      <div style={{ height: 12 }} />
      <Skeleton height={20} width={560} />
      <div style={{ height: 20 }} />
      <ChartsSkeleton />
      <div style={{ height: 16 }} />
      <TableSkeleton label="Loading passes" />
    </>
  );
}
