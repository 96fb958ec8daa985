import Link from "next/link";
import type { TracesPageParams } from "@/app/traces/search-params";

/** A plain GET form: works before hydration, and every search is a link. Submitting starts from the newest page. */
export function TraceFilters({ params }: { params: TracesPageParams }) {
  const active = Boolean(params.q || params.chain_id || params.mismatch !== undefined);
  return (
    <form className="toolbar" method="get" action="/traces" role="search" aria-label="Search traces">
      <input
        type="search"
        name="q"
        defaultValue={params.q ?? ""}
        placeholder="Text in an axiom, receipt or invalidated path"
        aria-label="Search axioms and invalidations"
        size={40}
      />
      <input
        type="text"
        name="chain_id"
        defaultValue={params.chain_id ?? ""}
        placeholder="Chain id"
        aria-label="Chain"
      />
      <select
        name="mismatch"
        defaultValue={params.mismatch === undefined ? "" : String(params.mismatch)}
        aria-label="Digest status"
      >
        <option value="">Any digest status</option>
        <option value="true">Client digest differs</option>
        <option value="false">No disagreement</option>
      </select>
      <button type="submit">Search</button>
      {active ? <Link href="/traces">Clear</Link> : null}
    </form>
  );
}
