import Link from "next/link";

/** Keyset paging links: newer, older and back to the newest page; the hrefs carry every other filter. */
export function Pager({
  label,
  newer,
  older,
  first,
  testId,
}: {
  label: string;
  newer: string | null;
  older: string | null;
  first: string | null;
  testId: string;
}) {
  if (!newer && !older && !first) return null;
  return (
    <nav className="pager" aria-label={label} data-testid={testId}>
      {first ? <Link href={first}>Newest</Link> : null}
      {newer ? (
        <Link href={newer} rel="prev">
          ← Newer
        </Link>
      ) : null}
      {older ? (
        <Link href={older} rel="next">
          Older →
        </Link>
      ) : null}
    </nav>
  );
}
