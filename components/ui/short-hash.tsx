import { CopyButton } from "./copy-button";

/** A long hash shortened for a table cell, with the whole value in the title and a copy button. */
export function ShortHash({ value, length = 10 }: { value: string | null; length?: number }) {
  if (value === null) return <span className="muted">—</span>;
  if (value === "") return <span className="muted">(empty)</span>;
  const short = value.length > length + 1 ? `${value.slice(0, length)}…` : value;
  return (
    <span className="short-hash">
      <code title={value}>{short}</code>
      <CopyButton value={value} label="Copy hash" icon />
    </span>
  );
}
