"use client";
import { createColumnHelper } from "@tanstack/react-table";
import { formatBytes } from "@/lib/format";
import { chainsHref, policiesHref } from "@/lib/routes";
import { KeptFor } from "./kept-for";

/** A content class with the floor in force and how its chains fare. */
export interface PolicyRow {
  content_class: string;
  version: number;
  min_size_bytes: number;
  min_semantic_density: number;
  max_pass_number: number;
  required_fields: string[];
  /** Days its chains are kept by its own policy; null follows FLOORLINE_RETENTION_DAYS. */
  retention_days: number | null;
  chains: number;
  collapsed: number;
  updated_at: string | null;
}

const col = createColumnHelper<PolicyRow>();

export const policyColumns = [
  col.accessor("content_class", {
    header: "Content class",
    cell: (c) => (
      <a href={policiesHref({ class: c.getValue() })} data-testid="policy-class-link">
        {c.getValue()}
      </a>
    ),
  }),
  col.accessor("version", {
    header: "Version",
    cell: (c) =>
      c.getValue() === 0 ? (
        <span className="badge neutral" title="No policy stored: the conservative default applies">
          default
        </span>
      ) : (
        `v${c.getValue()}`
      ),
  }),
  col.accessor("min_size_bytes", {
    header: "Min size",
    cell: (c) => <span title={`${c.getValue()} bytes`}>{formatBytes(c.getValue())}</span>,
  }),
  col.accessor("min_semantic_density", { header: "Min density", cell: (c) => c.getValue().toFixed(2) }),
  col.accessor("max_pass_number", { header: "Max pass", cell: (c) => c.getValue() }),
  col.accessor("required_fields", {
    header: "Required fields",
    cell: (c) =>
      c.getValue().length ? (
        <code className="ellipsis">{c.getValue().join(", ")}</code>
      ) : (
        <span className="muted">—</span>
      ),
  }),
  col.accessor("retention_days", {
    header: "Kept",
    cell: (c) => <KeptFor days={c.getValue()} />,
  }),
  col.accessor("chains", {
    header: "Chains",
    cell: (c) =>
      c.getValue() > 0 ? (
        <a href={chainsHref({ content_class: c.row.original.content_class })}>{c.getValue().toLocaleString("en")}</a>
      ) : (
        <span className="muted">0</span>
      ),
  }),
  col.accessor("collapsed", {
    header: "Collapsed",
    cell: (c) => {
      const { chains } = c.row.original;
      if (chains === 0) return <span className="muted">—</span>;
      return `${c.getValue().toLocaleString("en")} (${Math.round((c.getValue() / chains) * 100)}%)`;
    },
  }),
];
