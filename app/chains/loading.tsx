import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <>
      <Skeleton height={28} width={140} label="Loading chains" />
      <div style={{ height: 12 }} />
      <Skeleton height={34} width="70%" />
      <div style={{ height: 16 }} />
      <TableSkeleton rows={12} label="Loading chains" />
    </>
  );
}
