import { DEFAULT_LIMIT } from "@/lib/http/list";
import { ORIGINAL_STATUS_FILTERS, type OriginalListQuery } from "@/lib/schemas/originals";

type Filter = Omit<OriginalListQuery, "cursor">;

/** A plain GET form: filtering happens on the server and every view is a shareable link. */
export function OriginalsFilters({ filter }: { filter: Filter }) {
  return (
    <search aria-label="Filter originals">
      <form method="get" action="/originals" className="toolbar">
        <input
          type="search"
          name="q"
          defaultValue={filter.q ?? ""}
          placeholder="Hash prefix, tool, chain or pass"
          aria-label="Search"
          size={28}
        />
        <select name="status" defaultValue={filter.status ?? ""} aria-label="Status">
          <option value="">Any status</option>
          {ORIGINAL_STATUS_FILTERS.map((s) => (
            <option key={s} value={s}>
              {s === "gone" ? "gone (evicted or expired)" : s}
            </option>
          ))}
        </select>
        <input
          name="tool_name"
          defaultValue={filter.tool_name ?? ""}
          placeholder="Tool name"
          aria-label="Tool name"
          size={16}
        />
        <input
          name="chain_id"
          defaultValue={filter.chain_id ?? ""}
          placeholder="Chain id"
          aria-label="Chain id"
          size={16}
        />
        <input
          name="content_type"
          defaultValue={filter.content_type ?? ""}
          placeholder="Content type"
          aria-label="Content type"
          size={16}
        />
        <input type="hidden" name="sort" value={filter.sort} />
        <input type="hidden" name="order" value={filter.order} />
        {filter.limit !== DEFAULT_LIMIT ? <input type="hidden" name="limit" value={filter.limit} /> : null}
        <button type="submit">Apply</button>
        <a href="/originals">Reset</a>
      </form>
    </search>
  );
}
