"use client";
// The chains list filters as a plain GET form: the URL is the state, and it works before
// hydration. Choices apply on submit (Apply or Enter), never on change: arrow keys in a select
// fire a change for every option passed, and applying each one would drop keyboard focus.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { chainsHref } from "@/lib/routes";
import { RANGE_KEYS, RANGES, type RangeKey } from "@/lib/chains/overview";
import {
  CHAIN_SORTS,
  CHAIN_STATUS_FILTERS,
  type ChainStatusFilter,
  defaultOrder,
  type ChainSort,
} from "@/lib/schemas/chains";
import { MARKER_FINDING_KINDS, type MarkerFindingKind } from "@/lib/markers/findings";
import { STATUS_FILTER_LABEL } from "@/components/ui/status-badges";

/** The marker filter's choices: each marker finding kind (docs/markers.md), in a few words. */
export const MARKER_KIND_LABEL: Record<MarkerFindingKind, string> = {
  marker_unknown: "names no original",
  marker_expired: "original expired or evicted",
  marker_nested: "nested marker",
  retrieve_recompressed: "retrieve re-compressed",
  marker_without_tool: "no retrieve tool",
};

export const SORT_LABEL: Record<ChainSort, string> = {
  attention: "Needs attention",
  last_activity: "Last activity",
  pass_count: "Pass count",
  min_density: "Lowest claimed density",
  min_measured_density: "Lowest measured density",
  min_size: "Smallest size",
};

const ORDER_LABEL: Record<ChainSort, { asc: string; desc: string }> = {
  attention: { desc: "collapsed first", asc: "collapsed last" },
  last_activity: { desc: "newest first", asc: "oldest first" },
  pass_count: { desc: "most first", asc: "fewest first" },
  min_density: { asc: "lowest first", desc: "highest first" },
  min_measured_density: { asc: "lowest first", desc: "highest first" },
  min_size: { asc: "smallest first", desc: "largest first" },
};

export interface ChainFiltersProps {
  /** A comma list of statuses (any of them). */
  status?: string;
  /** A comma list of marker finding kinds (any of them). */
  markerKind?: string;
  range?: RangeKey;
  contentClass?: string;
  /** The OpenTelemetry service filter; the control shows only when some chain came with one. */
  service?: string;
  services?: string[];
  q?: string;
  sort: ChainSort;
  order: "asc" | "desc";
  limit: number;
  classes: string[];
}

export function ChainFilters({
  status,
  markerKind,
  range,
  contentClass,
  service,
  services = [],
  q,
  sort,
  order,
  limit,
  classes,
}: ChainFiltersProps) {
  const router = useRouter();
  const form = useRef<HTMLFormElement>(null);
  const [search, setSearch] = useState(q ?? "");

  function apply() {
    if (!form.current) return;
    const params = new URLSearchParams();
    for (const [key, value] of new FormData(form.current))
      if (typeof value === "string" && value !== "") params.set(key, value);
    const chosenSort = (params.get("sort") ?? "attention") as ChainSort;
    // A new sort starts in its natural direction; defaults stay out of the URL so links stay short.
    if (chosenSort !== sort || params.get("order") === defaultOrder(chosenSort)) params.delete("order");
    if (params.get("sort") === "attention") params.delete("sort");
    if (params.get("limit") === "50") params.delete("limit");
    router.push(chainsHref(Object.fromEntries(params)));
  }

  // A link elsewhere on the page (or the back button) can change the search: follow it.
  useEffect(() => {
    if (document.activeElement?.getAttribute("name") !== "q") setSearch(q ?? "");
  }, [q]);

  return (
    <search aria-label="Filter chains">
      <form
        ref={form}
        method="get"
        action="/chains"
        className="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <label>
          <span className="visually-hidden">Search chain id</span>
          <input
            type="search"
            name="q"
            placeholder="Search chain id…"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            data-testid="filter-q"
          />
        </label>
        <label>
          Status{" "}
          <select key={status ?? ""} name="status" defaultValue={status ?? ""} data-testid="filter-status">
            <option value="">any</option>
            {CHAIN_STATUS_FILTERS.map((s) => (
              <option key={s} value={s}>
                {STATUS_FILTER_LABEL[s]}
              </option>
            ))}
            {status?.includes(",") ? (
              <option value={status}>
                {status
                  .split(",")
                  .map((s) => STATUS_FILTER_LABEL[s as ChainStatusFilter] ?? s)
                  .join(" or ")}
              </option>
            ) : null}
          </select>
        </label>
        <label>
          Markers{" "}
          <select
            key={markerKind ?? ""}
            name="marker_kind"
            defaultValue={markerKind ?? ""}
            data-testid="filter-marker-kind"
          >
            <option value="">any</option>
            {MARKER_FINDING_KINDS.map((k) => (
              <option key={k} value={k}>
                {MARKER_KIND_LABEL[k]}
              </option>
            ))}
            {markerKind?.includes(",") ? (
              <option value={markerKind}>
                {markerKind
                  .split(",")
                  .map((k) => MARKER_KIND_LABEL[k as MarkerFindingKind] ?? k)
                  .join(" or ")}
              </option>
            ) : null}
          </select>
        </label>
        <label>
          Active{" "}
          <select key={range ?? ""} name="range" defaultValue={range ?? ""} data-testid="filter-range">
            <option value="">any time</option>
            {RANGE_KEYS.filter((k) => k !== "all").map((k) => (
              <option key={k} value={k}>
                in the last {RANGES[k].label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Class{" "}
          <select
            key={contentClass ?? ""}
            name="content_class"
            defaultValue={contentClass ?? ""}
            data-testid="filter-class"
          >
            <option value="">any</option>
            {classes.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        {services.length > 0 || service ? (
          <label>
            Service{" "}
            <select
              key={service ?? ""}
              name="service"
              defaultValue={service ?? ""}
              onChange={() => apply()}
              data-testid="filter-service"
            >
              <option value="">any</option>
              {(service && !services.includes(service) ? [service, ...services] : services).map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Sort{" "}
          <select key={sort} name="sort" defaultValue={sort} data-testid="filter-sort">
            {CHAIN_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABEL[s]}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="visually-hidden">Order</span>
          <select key={order} name="order" defaultValue={order} data-testid="filter-order">
            <option value={defaultOrder(sort)}>{ORDER_LABEL[sort][defaultOrder(sort)]}</option>
            <option value={defaultOrder(sort) === "asc" ? "desc" : "asc"}>
              {ORDER_LABEL[sort][defaultOrder(sort) === "asc" ? "desc" : "asc"]}
            </option>
          </select>
        </label>
        <label>
          Rows{" "}
          <select key={limit} name="limit" defaultValue={String(limit)}>
            {[25, 50, 100, 200].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" data-testid="filter-apply">
          Apply
        </button>
      </form>
    </search>
  );
}
