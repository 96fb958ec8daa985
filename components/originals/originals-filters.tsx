import { DEFAULT_LIMIT } from "@/lib/http/list";
import { ORIGINAL_STATUS_FILTERS, type OriginalListQuery } from "@/lib/schemas/originals";
import { FilterForm } from "@/components/ui/filter-form";

type Filter = Omit<OriginalListQuery, "cursor">;

const TEXT_FILTERS = [
  ["tool_name", "Tool name"],
  ["chain_id", "Chain id"],
  ["content_type", "Content type"],
  ["tenant", "Tenant"],
] as const satisfies readonly (readonly [keyof Filter, string])[];

export function OriginalsFilters({ filter }: { filter: Filter }) {
  return (
    <FilterForm label="Filter originals" action="/originals">
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
      {TEXT_FILTERS.map(([name, label]) => (
        <input
          key={name}
          name={name}
          defaultValue={filter[name] ?? ""}
          placeholder={label}
          aria-label={label}
          size={16}
        />
      ))}
      <input type="hidden" name="sort" value={filter.sort} />
      <input type="hidden" name="order" value={filter.order} />
      {filter.limit !== DEFAULT_LIMIT ? <input type="hidden" name="limit" value={filter.limit} /> : null}
      <button type="submit">Apply</button>
      <a href="/originals">Reset</a>
    </FilterForm>
  );
}
