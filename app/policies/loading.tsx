import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <>
      <Skeleton height={28} width={160} label="Loading policies" />
      <div style={{ height: 12 }} />
      <Skeleton height={16} width="60%" />
      <div style={{ height: 16 }} />
      <TableSkeleton rows={5} label="Loading policies" />
    </>
  );
}
