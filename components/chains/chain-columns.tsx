"use client";
import { WIDE_ONLY } from "@/components/data-table";
import { createColumnHelper } from "@tanstack/react-table";
import type { ChainSummaryWire } from "@/lib/schemas/chains";
import { formatBytes, formatCount, formatUtc } from "@/lib/format";
import { chainHref } from "@/lib/routes";
import { StatusBadges } from "@/components/ui/status-badges";
import { VerdictBadge } from "@/components/ui/verdict-badge";

const col = createColumnHelper<ChainSummaryWire>();

// On a phone the list keeps what tells chains apart at a glance (status, collapse, both
// densities, activity); the chain's page has the rest (the WIDE_ONLY columns).

export const chainColumns = [
  col.accessor("chain_id", {
    header: "Chain",
    cell: (c) => (
      <a href={chainHref(c.getValue())} className="chain-link">
        {c.getValue()}
      </a>
    ),
  }),
  col.accessor("content_class", { header: "Class", meta: WIDE_ONLY }),
  col.accessor("statuses", { header: "Status", cell: (c) => <StatusBadges statuses={c.getValue()} /> }),
  col.accessor("pass_count", { header: "Passes", cell: (c) => formatCount(c.getValue()) }),
  col.accessor("last_verdict", {
    header: "Last verdict",
    meta: WIDE_ONLY,
    cell: (c) => <VerdictBadge verdict={c.getValue()} />,
  }),
  col.accessor("collapse_point", {
    header: "Collapse point",
    cell: (c) => {
      const point = c.getValue();
      if (!point) return <span className="muted">none</span>;
      return (
        <a
          href={chainHref(c.row.original.chain_id, { pass: point.pass_id, from: point.pass_number })}
          data-testid="collapse-link"
        >
          pass {point.pass_number}
        </a>
      );
    },
  }),
  col.accessor("min_semantic_density", {
    header: "Lowest claimed density",
    cell: (c) => {
      const density = c.getValue();
      return density === null ? "—" : density.toFixed(2);
    },
  }),
  col.accessor("min_measured_density", {
    header: "Lowest measured density",
    cell: (c) => {
      const density = c.getValue();
      // Unmeasured chains (no content, or no known source) have only the claim to go on.
      return density === null ? <span className="muted">—</span> : density.toFixed(2);
    },
  }),
  col.accessor("min_size_bytes", {
    header: "Smallest size",
    meta: WIDE_ONLY,
    cell: (c) => formatBytes(c.getValue()),
  }),
  col.accessor("last_activity_at", {
    header: "Last activity",
    cell: (c) => (
      <time className="nowrap" dateTime={c.getValue()}>
        {formatUtc(c.getValue())}
      </time>
    ),
  }),
];
