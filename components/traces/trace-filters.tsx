import Link from "next/link";
import { tracesHref } from "@/lib/routes";
import { FilterForm } from "@/components/ui/filter-form";

/** Submitting starts from the newest page: the form carries no cursor. */
export function TraceFilters({
  q,
  chainId,
  mismatch,
  walls,
}: {
  q?: string;
  chainId?: string;
  mismatch?: boolean;
  walls?: boolean;
}) {
  const active = Boolean(q || chainId || mismatch !== undefined || walls !== undefined);
  return (
    <FilterForm label="Search traces" action="/traces">
      <input
        type="search"
        name="q"
        defaultValue={q ?? ""}
        placeholder="Text in an axiom, receipt or invalidated path"
        aria-label="Search axioms and invalidations"
        size={40}
      />
      <input type="text" name="chain_id" defaultValue={chainId ?? ""} placeholder="Chain id" aria-label="Chain" />
      <select name="mismatch" defaultValue={mismatch === undefined ? "" : String(mismatch)} aria-label="Digest status">
        <option value="">Any digest status</option>
        <option value="true">Client digest differs</option>
        <option value="false">No disagreement</option>
      </select>
      <select name="walls" defaultValue={walls === undefined ? "" : String(walls)} aria-label="Lineage walls">
        <option value="">Any lineage</option>
        <option value="true">Hit an ancestor&apos;s wall</option>
        <option value="false">Hit no wall</option>
      </select>
      <button type="submit">Search</button>
      {active ? <Link href={tracesHref()}>Clear</Link> : null}
    </FilterForm>
  );
}
