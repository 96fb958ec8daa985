/** A stored original as the originals store describes it (db/queries/originals-links.ts). */
export interface OriginalLinkProps {
  hash: string;
  status: string;
  href: string;
}

/**
 * Links from a pass to the cached originals of its input and output, when the originals
 * store holds content with those hashes (live, or a tombstone saying why it is gone).
 */
export function OriginalLinks({
  input,
  output,
}: {
  input: OriginalLinkProps | null;
  output: OriginalLinkProps | null;
}) {
  if (!input && !output) {
    return (
      <span className="muted" data-testid="original-links">
        none stored for this pass&apos;s input or output hash
      </span>
    );
  }
  return (
    <span className="original-links" data-testid="original-links">
      {input ? <OriginalLink which="input" link={input} /> : null}
      {output ? <OriginalLink which="output" link={output} /> : null}
    </span>
  );
}

function OriginalLink({ which, link }: { which: "input" | "output"; link: OriginalLinkProps }) {
  return (
    <a href={link.href} className="original-link" title={link.hash}>
      {which} original <code>{link.hash.slice(0, 12)}…</code>
      {link.status !== "live" ? <span className="badge neutral">{link.status}</span> : null}
    </a>
  );
}
