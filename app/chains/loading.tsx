import { ListPageSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <ListPageSkeleton label="Loading chains" rows={12} titleWidth={140} />;
}
