import { formatUtcParts } from "@/lib/format";

/** A stored time on two short lines (date, then time UTC), machine-readable in dateTime. */
export function Stamp({ iso }: { iso: string }) {
  const [date, time] = formatUtcParts(iso);
  return (
    <time dateTime={iso} className="audit-stack audit-nowrap">
      <span>{date}</span>
      <span className="audit-subtle audit-small">{time}</span>
    </time>
  );
}
