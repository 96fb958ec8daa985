import { Skeleton } from "@/components/ui/skeleton";

// Shown for any page of the dashboard while it renders on the server; pages then stream
// their own, more specific skeletons.
export default function Loading() {
  return (
    <div aria-busy="true">
      <Skeleton height={28} width={240} label="Loading page" />
      <div style={{ height: 8 }} />
      <Skeleton height={16} width={420} />
      <div style={{ height: 24 }} />
      <Skeleton height={120} />
      <div style={{ height: 16 }} />
      <Skeleton height={320} />
    </div>
  );
}
