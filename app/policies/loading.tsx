import { ListPageSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <ListPageSkeleton label="Loading policies" rows={5} titleWidth={160} />;
}
